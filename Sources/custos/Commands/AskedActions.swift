import CustosAPI
import CustosSDK

/// Recorded frames handed to a challenge, keeping the actions it asked for: a LIVENESS_FAILED
/// answer names no action, and a recording can only show what was recorded.
struct WatchedFrames: FrameSource {
    let frames: any FrameSource
    let asked = AskedActions()

    func capture(_ request: CaptureRequest) async throws -> [CapturedImage] {
        await asked.record(request.actions.map(\.action))
        return try await frames.capture(request)
    }
}

/// The actions the last challenge asked for, in order.
actor AskedActions {
    private(set) var actions: [String] = []

    func record(_ actions: [String]) { self.actions = actions }

    /// What to print under a LIVENESS_FAILED: the actions, and a hint when recorded frames
    /// cannot have shown them (the project's sample recordings only blink).
    func explanation() -> [String] {
        guard !actions.isEmpty else { return [] }
        var lines = ["the challenge asked for: \(actions.joined(separator: ", then "))"]
        if actions.contains(where: { $0 != "blink" }) {
            lines.append("hint: recorded frames show only what was recorded; for the sample recordings (they blink), "
                         + "serve with --liveness-actions blink")
        }
        return lines
    }
}
