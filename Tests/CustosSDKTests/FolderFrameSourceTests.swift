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
        let before = Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
        let frames = try await source.capture(request)
        let after = Int64((Date().timeIntervalSince1970 * 1000).rounded(.up))
        #expect(frames.count == 3)
        #expect(frames.map { $0.capturedAtMs - frames[0].capturedAtMs } == [0, 250, 500])
        #expect(frames.map { $0.jpeg.last } == [5, 5, 6])
        // Stamped as captured just now: the last frame at the moment the capture returned them.
        #expect(before <= frames[2].capturedAtMs && frames[2].capturedAtMs <= after, "\(frames[2].capturedAtMs) not in \(before)...\(after)")
    }

    @Test func timesFromTheSidecar() async throws {
        let source = FolderFrameSource(directory: try folder(["a.jpg", "b.jpg"], sidecar: "a.jpg 100\nb.jpg 433\n"), pace: false)
        let frames = try await source.capture(request)
        #expect(frames[1].capturedAtMs - frames[0].capturedAtMs == 333)
    }

    @Test func clearErrors() async throws {
        let cases: [(folder: URL, message: String)] = [
            (try folder(["a.jpg", "b.jpg"], sidecar: "a.jpg 100\n"), "has no time for b.jpg"),
            (try folder(["a.jpg"], sidecar: "a.jpg soon\n"), "lines must read '<file name> <milliseconds>'"),
            (try folder(["1.jpg", "2.jpg", "3.jpg", "4.jpg", "5.jpg"]), "has 5 frames; the server takes at most 4"),
            (try folder([]), "no JPEG frames in"),
        ]
        for (directory, message) in cases {
            let error = await #expect(throws: CustosError.self) { try await FolderFrameSource(directory: directory, pace: false).capture(request) }
            #expect(error?.code == "invalid_configuration", "\(String(describing: error))")
            #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
        }
    }

    /// Microsecond stamps, times out of order and extreme values are refused at once: no
    /// sleeping for days, no arithmetic trap. The capture runs in a cancelled task: had it
    /// waited first, the wait would have ended in a `CancellationError`, not this error.
    @Test(arguments: [
        ("a.jpg 1000000\nb.jpg 1333000\nc.jpg 1666000\n", "the challenge allows at most 20000 ms"),
        ("a.jpg 433\nb.jpg 100\nc.jpg 766\n", "times must not decrease in name order (b.jpg at 100 after a.jpg at 433)"),
        ("a.jpg -9223372036854775808\nb.jpg 0\nc.jpg 9223372036854775807\n", "span too long"),
    ])
    func badTimestampsAreRefusedBeforeWaiting(sidecar: String, message: String) async throws {
        let source = FolderFrameSource(directory: try folder(["a.jpg", "b.jpg", "c.jpg"], sidecar: sidecar), pace: true)
        let capture = Task { [request = self.request] in try await source.capture(request) }
        capture.cancel()
        let error = await #expect(throws: CustosError.self) { try await capture.value }
        #expect(error?.code == "invalid_configuration", "\(String(describing: error))")
        #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
    }

    @Test func extremeTimesWithinTheMaximumAreRestamped() async throws {
        let sidecar = "a.jpg -9223372036854775808\nb.jpg -9223372036854775808\nc.jpg -9223372036854755808\n"
        let frames = try await FolderFrameSource(directory: try folder(["a.jpg", "b.jpg", "c.jpg"], sidecar: sidecar), pace: false)
            .capture(request)
        #expect(frames.map { $0.capturedAtMs - frames[0].capturedAtMs } == [0, 0, 20000])
    }

    @Test func aFrameRateTooLowForTheChallengeIsRefused() async throws {
        let refusals: [(fps: Double, message: String)] = [
            (1e-300, "per second spaces the frames too far apart"),
            (0.01, "span 100000 ms; the challenge allows at most 20000 ms"),
            (Double.nan, "frames per second must be a positive number"),
            (Double.infinity, "frames per second must be a positive number"),
        ]
        for (fps, message) in refusals {
            let source = FolderFrameSource(directory: try folder(["a.jpg", "b.jpg"]), framesPerSecond: fps, pace: true)
            let error = await #expect(throws: CustosError.self) { try await source.capture(request) }
            #expect(error?.code == "invalid_configuration", "\(fps): \(String(describing: error))")
            #expect(error?.message.contains(message) == true, "\(fps): \(error?.message ?? "")")
        }
    }
}
