import CustosAPI
import Foundation

/// What the server's liveness challenge asks the camera for.
public struct CaptureRequest: Sendable, Equatable {
    public var workflow: Workflow
    /// The actions to perform, in order, with the instruction to show for each.
    public var actions: [LivenessActionInfo]
    /// Show "hold still" this long from the first frame before the first instruction: no
    /// action counts before it has passed.
    public var pauseMs: Int
    public var minimumDurationMs: Int
    public var maximumDurationMs: Int
    public var minimumFrames: Int
    public var maximumFrames: Int
    public var maximumFrameBytes: Int

    init(_ challenge: LivenessChallengeInfo) {
        workflow = challenge.workflow
        actions = challenge.actions
        pauseMs = challenge.pauseMs
        minimumDurationMs = challenge.minDurationMs
        maximumDurationMs = challenge.maxDurationMs
        minimumFrames = challenge.minFrames
        maximumFrames = challenge.maxFrames
        maximumFrameBytes = challenge.maxFrameBytes
    }
}

/// One camera frame: JPEG bytes and when it was captured (milliseconds, any epoch).
public struct CapturedImage: Sendable, Equatable {
    public var capturedAtMs: Int64
    public var jpeg: Data

    public init(capturedAtMs: Int64, jpeg: Data) {
        self.capturedAtMs = capturedAtMs
        self.jpeg = jpeg
    }
}

/// The camera: shows the challenge's instructions, records the person performing them and
/// returns the frames. Apps wrap their camera; the CLI and tests read recorded frames.
public protocol FrameSource: Sendable {
    func capture(_ request: CaptureRequest) async throws -> [CapturedImage]
}
