import CustosAPI
import CustosCore
import CustosSDK
import CustosServer
import Foundation
import Synchronization
import Testing

/// The shared face engine, refusing admission while a test says it is busy (as `FaceEngine`
/// does when its queue would keep a request waiting past `--face-queue-seconds`).
final class BusyFaces: FaceAnalyzer {
    private let engine: any FaceAnalyzer
    /// Retry-After, and how many more admissions to refuse (nil: all).
    private let busy = Mutex<(retryAfter: Int, left: Int?)?>(nil)
    let refused = Mutex(0)

    init(_ engine: any FaceAnalyzer) { self.engine = engine }

    func refusing(retryAfter seconds: Int?, times: Int? = nil) { busy.withLock { $0 = seconds.map { ($0, times) } } }

    func admit(calls: Int) throws(FaceError) -> FaceAdmission {
        let refusal = busy.withLock { state -> Int? in
            guard let current = state else { return nil }
            if let left = current.left { state = left > 1 ? (current.retryAfter, left - 1) : nil }
            return current.retryAfter
        }
        if let seconds = refusal {
            refused.withLock { $0 += 1 }
            throw .busy(retryAfter: seconds)
        }
        return try engine.admit(calls: calls)
    }

    func analyze(_ imageData: Data, options: FaceOptions) throws(FaceError) -> [Face] { try engine.analyze(imageData, options: options) }
    func analyzeFrame(_ imageData: Data, options: FaceOptions) throws(FaceError) -> (faces: [Face], fingerprint: FrameFingerprint?) {
        try engine.analyzeFrame(imageData, options: options)
    }
    func declaredSize(of imageData: Data) -> (width: Int, height: Int)? { engine.declaredSize(of: imageData) }
    var queueStatistics: FaceQueueStatistics? { engine.queueStatistics }
}

/// Overload is refused early, not answered late: a selfie the face engine could not start on
/// within its bound gets 503 `server_busy` with `Retry-After` at once, and spends nothing (not
/// the challenge's nonce, not an attempt), so the same upload succeeds once the queue drains;
/// the SDK sends it again by itself.
@Suite(needsFaces) struct FaceOverloadTests {
    @Test(arguments: StoreKind.available)
    func aBusyFaceEngineRefusesAtOnceAndSpendsNothing(kind: StoreKind) async throws {
        let faces = BusyFaces(try FaceFixture.engine())
        let live = try LiveServer(store: LiveServer.store(kind), idv: IDVPolicies.only(.blink), faces: faces)
        defer { live.stop() }
        let (client, userID) = try await live.enrolledUser()
        let bearer = try #require(client.session.sessionToken)
        let take = try FaceFixture.frames("blink_selfie", 38...50)
        let fps = FaceFixture.framesPerSecond("blink_selfie")

        // The SDK sends the same upload again after Retry-After: refused twice, then judged.
        faces.refusing(retryAfter: 1, times: 2)
        let matched = try await client.initiateIDVServerBiometricAuthentication(
            reason: "Busy, then not", frameSource: RecordedFrames(frames: try FaceFixture.frames("blink_selfie", 119...131), framesPerSecond: fps,
                                                                   clock: live.clock))
        #expect(matched.biometricResult?.displayText == "MATCHED", "\(String(describing: matched.biometricResult))")
        #expect(faces.refused.withLock { $0 } == 2)

        // Still busy after its resends: the SDK reports the server's words and when to retry.
        faces.refusing(retryAfter: 1)
        do {
            _ = try await client.initiateIDVServerBiometricAuthentication(
                reason: "Busy", frameSource: RecordedFrames(frames: take, framesPerSecond: fps, clock: live.clock))
            Issue.record("expected server_busy")
        } catch let error as CustosError {
            #expect(error.code == "server_busy" && error.httpStatus == 503 && error.retryAfterSeconds == 1, "\(error)")
            #expect(error.message.contains("busy"))
        }
        #expect(faces.refused.withLock { $0 } == 2 + 1 + CustosClient.busyResends)

        // The raw upload: refused, then the very same body (same nonce) is judged once there is room.
        // (Its new challenge supersedes the SDK's, which was out: that one costs an attempt, as a
        // cancel does; the refused upload itself costs none.)
        let api = RawAPI(base: live.baseURL)
        let challenge = try await api.challenge(bearer: bearer)
        let attemptsBefore = try live.identity.attemptsLeft(userID: userID, factor: .biometric)
        #expect(attemptsBefore == 4)
        let path = "/v1/idv/transactions/\(challenge.idvAuditTransactionID)/frames"
        let body = IDVFramesRequest(nonce: challenge.nonce,
                                    frames: uploads(take, framesPerSecond: FaceFixture.framesPerSecond("blink_selfie")))
        live.clock.advance(by: 2)
        let (status, refused) = try await api.postRaw(path, body, bearer: bearer)
        #expect(status == 503 && refused.error.code == "server_busy", "\(status) \(refused.error.code)")
        #expect(try live.identity.attemptsLeft(userID: userID, factor: .biometric) == attemptsBefore)
        #expect(faces.refused.withLock { $0 } == 3 + CustosClient.busyResends + 1)

        faces.refusing(retryAfter: nil)
        let result: IDVResultResponse = try await api.post(path, body, bearer: bearer)
        #expect(result.biometricResult?.displayText == "MATCHED", "\(String(describing: result.biometricResult))")
        #expect(result.attemptsLeft == 5)
        // What /metrics shows of the engine's queue.
        let metrics = FaceQueueMetrics.render(try #require(live.idv?.faceQueue))
        for name in ["custos_face_queue_depth", "custos_face_workers_busy", "custos_face_queue_wait_seconds_count", "custos_face_busy_refusals_total"] {
            #expect(metrics.contains("\n\(name) "), "\(name) missing")
        }
    }

    /// Two nodes sharing PostgreSQL: an upload refused by a busy node spent nothing the other
    /// node sees (not the nonce, not an attempt), and the other node judges the very same body.
    @Test(.enabled(if: StoreKind.available.contains(.postgresql)))
    func anUploadABusyNodeRefusedIsJudgedOnTheOther() async throws {
        let schema = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        let faces = BusyFaces(try FaceFixture.engine())
        let busy = try LiveServer(store: LiveServer.store(.postgresql, schema: String(schema)), idv: IDVPolicies.only(.blink), faces: faces)
        let other = try LiveServer(store: LiveServer.store(.postgresql, schema: String(schema)), idv: IDVPolicies.only(.blink))
        defer { busy.stop(); other.stop() }
        let (client, userID) = try await busy.enrolledUser()
        let bearer = try #require(client.session.sessionToken)
        let take = try FaceFixture.frames("blink_selfie", 38...50)
        faces.refusing(retryAfter: 3)

        let challenge = try await RawAPI(base: busy.baseURL).challenge(bearer: bearer)
        let attempts = try busy.identity.attemptsLeft(userID: userID, factor: .biometric)
        let path = "/v1/idv/transactions/\(challenge.idvAuditTransactionID)/frames"
        let body = IDVFramesRequest(nonce: challenge.nonce,
                                    frames: uploads(take, framesPerSecond: FaceFixture.framesPerSecond("blink_selfie")))
        busy.clock.advance(by: 2)
        other.clock.advance(by: 2)
        let (status, refused) = try await RawAPI(base: busy.baseURL).postRaw(path, body, bearer: bearer)
        #expect(status == 503 && refused.error.code == "server_busy", "\(status) \(refused.error.code)")
        #expect(try other.identity.attemptsLeft(userID: userID, factor: .biometric) == attempts)

        let result: IDVResultResponse = try await RawAPI(base: other.baseURL).post(path, body, bearer: bearer)
        #expect(result.biometricResult?.displayText == "MATCHED", "\(String(describing: result.biometricResult))")
        #expect(faces.refused.withLock { $0 } == 1)
    }
}
