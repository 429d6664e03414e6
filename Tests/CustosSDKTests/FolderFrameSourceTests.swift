import CustosAPI
@testable import CustosSDK
import Foundation
import Testing

@Suite struct FolderFrameSourceTests {
    func folder(_ names: [String], sidecar: String? = nil) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("custos-frames-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for name in names { try Data([0xFF, 0xD8, 0xFF, UInt8(name.count)]).write(to: directory.appendingPathComponent(name)) }
        try Data("not a frame".utf8).write(to: directory.appendingPathComponent("notes.md"))
        if let sidecar { try Data(sidecar.utf8).write(to: directory.appendingPathComponent("timestamps.txt")) }
        return directory
    }

    let request = CaptureRequest(LivenessChallengeInfo(idvAuditTransactionID: "t", workflow: 8, nonce: "n",
                                                       actions: [LivenessActionInfo(action: "blink", instruction: "Blink")],
                                                       minDurationMs: 500, maxDurationMs: 20000, minFrames: 3, maxFrames: 4,
                                                       maxFrameBytes: 1000, expiresAt: Date()))

    @Test func framesInNameOrderAtTheFrameRate() async throws {
        let source = FolderFrameSource(directory: try folder(["b.jpg", "a.jpg", "c.JPEG"]), framesPerSecond: 4, pace: false)
        let frames = try await source.capture(request)
        #expect(frames.count == 3)
        #expect(frames.map { $0.capturedAtMs - frames[0].capturedAtMs } == [0, 250, 500])
        #expect(frames.map { $0.jpeg.last } == [5, 5, 6])
        // Stamped as captured just now.
        #expect(abs(frames[2].capturedAtMs - Int64(Date().timeIntervalSince1970 * 1000)) < 2000)
    }

    @Test func timesFromTheSidecar() async throws {
        let source = FolderFrameSource(directory: try folder(["a.jpg", "b.jpg"], sidecar: "a.jpg 100\nb.jpg 433\n"), pace: false)
        let frames = try await source.capture(request)
        #expect(frames[1].capturedAtMs - frames[0].capturedAtMs == 333)
    }

    @Test func clearErrors() async throws {
        await #expect(throws: CustosError.self) {
            try await FolderFrameSource(directory: try folder(["a.jpg", "b.jpg"], sidecar: "a.jpg 100\n"), pace: false).capture(request)
        }
        await #expect(throws: CustosError.self) {
            try await FolderFrameSource(directory: try folder(["a.jpg"], sidecar: "a.jpg soon\n"), pace: false).capture(request)
        }
        await #expect(throws: CustosError.self) {
            try await FolderFrameSource(directory: try folder(["1.jpg", "2.jpg", "3.jpg", "4.jpg", "5.jpg"]), pace: false).capture(request)
        }
        await #expect(throws: CustosError.self) { try await FolderFrameSource(directory: try folder([]), pace: false).capture(request) }
    }

    /// Microsecond stamps, times out of order and extreme values are refused at once: no
    /// sleeping for days, no arithmetic trap.
    @Test(arguments: [
        ("a.jpg 1000000\nb.jpg 1333000\nc.jpg 1666000\n", "the challenge allows at most 20000 ms"),
        ("a.jpg 433\nb.jpg 100\nc.jpg 766\n", "times must not decrease in name order (b.jpg at 100 after a.jpg at 433)"),
        ("a.jpg -9223372036854775808\nb.jpg 0\nc.jpg 9223372036854775807\n", "span too long"),
    ])
    func badTimestampsAreRefusedBeforeWaiting(sidecar: String, message: String) async throws {
        let source = FolderFrameSource(directory: try folder(["a.jpg", "b.jpg", "c.jpg"], sidecar: sidecar), pace: true)
        let started = Date()
        let error = await #expect(throws: CustosError.self) { try await source.capture(request) }
        #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
        #expect(Date().timeIntervalSince(started) < 2)
    }

    @Test func extremeTimesWithinTheMaximumAreRestamped() async throws {
        let sidecar = "a.jpg -9223372036854775808\nb.jpg -9223372036854775808\nc.jpg -9223372036854755808\n"
        let frames = try await FolderFrameSource(directory: try folder(["a.jpg", "b.jpg", "c.jpg"], sidecar: sidecar), pace: false)
            .capture(request)
        #expect(frames.map { $0.capturedAtMs - frames[0].capturedAtMs } == [0, 0, 20000])
    }

    @Test func aFrameRateTooLowForTheChallengeIsRefused() async throws {
        for fps in [1e-300, 0.01, .nan, .infinity] {
            let source = FolderFrameSource(directory: try folder(["a.jpg", "b.jpg"]), framesPerSecond: fps, pace: true)
            await #expect(throws: CustosError.self) { try await source.capture(request) }
        }
    }
}
