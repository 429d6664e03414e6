import CustosAPI
import CustosSDK
import Foundation

/// The demo's three takes: windows of the sample blink recording, each holding one blink, drawn
/// afresh on every run (a window is offset randomly around its blink, and the draw of the last
/// run is not repeated), so a second run is no replay of the first.
struct DemoTakes {
    static let sequence = "liveness/frames/blink_selfie"
    static let framesPerSecond = 12.0
    /// First frames of short blinks in the recording (its MANIFEST notes them); the long
    /// closures would read as eyes shut, not a blink.
    static let blinks = [21, 42, 57, 112, 121]
    /// Frames of one take: about 1.2 s at 12 fps.
    static let length = 15
    /// Open-eyed frames outside every window, used as the KYC document portrait.
    static let portraits = 100...102

    struct Window: CustomStringConvertible {
        let first: Int
        let folder: URL
        var last: Int { first + DemoTakes.length - 1 }
        var description: String { "frames \(first)-\(last) of blink_selfie" }
    }

    struct Step {
        let title: String
        let frames: Window
        let run: (CustosClient, WatchedFrames) async throws -> IDVResultResponse
    }

    let steps: [Step]

    /// Copies three fresh, non-overlapping windows and a portrait under `workspace`.
    static func fresh(root: URL, into workspace: URL) throws -> DemoTakes {
        let memory = FileManager.default.temporaryDirectory.appendingPathComponent("custos-demo-last-takes")
        let last = (try? String(contentsOf: memory, encoding: .utf8)) ?? ""
        var starts: [Int]
        repeat {
            starts = Array(blinks.shuffled().prefix(3)).map { $0 - Int.random(in: 5...9) }
        } while overlap(starts) || key(starts) == last
        try? key(starts).write(to: memory, atomically: true, encoding: .utf8)

        let frames = root.appendingPathComponent(sequence)
        let windows = try starts.enumerated().map { index, first in
            let folder = workspace.appendingPathComponent("take\(index + 1)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for (offset, number) in (first...(first + length - 1)).enumerated() {
                try FileManager.default.copyItem(at: frames.appendingPathComponent(String(format: "frame_%04d.jpg", number)),
                                                 to: folder.appendingPathComponent(String(format: "f%03d.jpg", offset)))
            }
            return Window(first: first, folder: folder)
        }
        let portraitNumber = Int.random(in: portraits)
        let portrait = try Data(contentsOf: frames.appendingPathComponent(String(format: "frame_%04d.jpg", portraitNumber)))
        return DemoTakes(steps: [
            Step(title: "1. biometric opt-in (workflow 10)", frames: windows[0]) { client, frames in
                try await client.initiateIDVBiometricOptIn(consentVersion: "v1", reason: "custos demo", frameSource: frames)
            },
            Step(title: "2. server biometric authentication (workflow 8)", frames: windows[1]) { client, frames in
                try await client.initiateIDVServerBiometricAuthentication(reason: "custos demo", frameSource: frames)
            },
            Step(title: "3. KYC against frame \(portraitNumber) as the document portrait (workflow 6)", frames: windows[2]) { client, frames in
                try await client.initiateActivatedCustomerKYC(documentImage: portrait, consentVersion: "v1", frameSource: frames)
            },
        ])
    }

    private static func overlap(_ starts: [Int]) -> Bool {
        let sorted = starts.sorted()
        return zip(sorted, sorted.dropFirst()).contains { $1 - $0 < length }
    }

    private static func key(_ starts: [Int]) -> String { starts.map(String.init).joined(separator: ",") }
}
