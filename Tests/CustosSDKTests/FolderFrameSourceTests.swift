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
}
