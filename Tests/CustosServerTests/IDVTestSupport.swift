import CustosAPI
import CustosCore
import CustosSDK
import Foundation
import Testing

/// A camera replaying recorded frames in-process: stamped at the recording's frame rate as if
/// captured just now, and moving the server's clock on by the capture's length instead of
/// sleeping through it.
struct RecordedFrames: FrameSource {
    let frames: [Data]
    let framesPerSecond: Double
    let clock: TestClock

    func capture(_ request: CaptureRequest) async throws -> [CapturedImage] {
        let span = Double(frames.count - 1) / framesPerSecond
        clock.advance(by: span)
        let start = Int64(Date().timeIntervalSince1970 * 1000)
        return frames.enumerated().map { index, jpeg in
            CapturedImage(capturedAtMs: start + Int64((Double(index) * 1000 / framesPerSecond).rounded()), jpeg: jpeg)
        }
    }
}

extension LiveServer {
    /// A user activated through the SDK and enrolled (opt-in) with blink_selfie frames 1-25.
    func enrolledUser() async throws -> (client: CustosClient, userID: String) {
        let (client, userID, _) = try await IdentityFlowTests.activatedUser(self)
        let frames = RecordedFrames(frames: try FaceFixture.frames("blink_selfie", 1...25), framesPerSecond: 12, clock: clock)
        let enrolled = try await client.initiateIDVBiometricOptIn(consentVersion: "v1", frameSource: frames)
        #expect(enrolled.templateCreated)
        return (client, userID)
    }
}

/// The IDV policies of the tests: recorded sequences can only do what they show.
enum IDVPolicies {
    static func only(_ action: LivenessAction) -> IDVPolicy {
        var policy = IDVPolicy()
        policy.liveness.allowedActions = [action]
        policy.liveness.actionsPerChallenge = 1
        return policy
    }
}

/// Uploads bodies the SDK would never send.
extension RawAPI {
    /// Opens a workflow-8 transaction with its challenge.
    func challenge(bearer: String, workflow: Workflow = .serverBiometricAuthentication) async throws -> LivenessChallengeInfo {
        let consent = workflow == 8 ? nil : IDVConsent(accepted: true, version: "v1")
        let transaction: IDVTransactionInfo = try await post("/v1/idv/transactions", IDVInitiateRequest(workflow: workflow, consent: consent),
                                                             bearer: bearer)
        #expect(transaction.result == nil, "the transaction ended at once: \(String(describing: transaction.result?.statusCode))")
        return try await post("/v1/idv/transactions/\(transaction.idvAuditTransactionID)/confirm", Empty(), bearer: bearer)
    }

    struct Empty: Encodable {}
}

/// Frame uploads stamped at `framesPerSecond` from `start`.
func uploads(_ frames: [Data], framesPerSecond: Double = 12, start: Int64 = 1_000_000) -> [FrameUpload] {
    frames.enumerated().map { FrameUpload(capturedAtMs: start + Int64(Double($0.offset) * 1000 / framesPerSecond), image: $0.element) }
}
