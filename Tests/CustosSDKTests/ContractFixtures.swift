import CustosAPI
@testable import CustosSDK
import Foundation

/// Answers a Custos server gives, as the stub serves them, and clients set up to meet them.
enum ContractFixtures {
    static let userID = "alice"
    static let sessionToken = "cs_test"
    static let transactionID = "a1b2c3d4"
    static let unreachable = URL(string: "http://127.0.0.1:1")!

    static func json<T: Encodable>(_ value: T) -> Data {
        // Test fixtures of the project's own wire types: encoding cannot fail.
        try! WireJSON.encoder().encode(value)
    }

    /// An error envelope, with a contract `status_code` beside it when given.
    static func envelope(_ code: String, _ message: String, statusCode: Int? = nil) -> Data {
        var object: [String: Any] = ["error": ["code": code, "message": message]]
        if let statusCode { object["status_code"] = statusCode }
        return try! JSONSerialization.data(withJSONObject: object)
    }

    static func authentication(_ statusCode: StatusCode, userID: String = userID, attemptsLeft: Int = 0) -> Data {
        json(AuthenticationResult(statusCode: statusCode, statusMessage: "", userID: userID, attemptsLeft: attemptsLeft))
    }

    static func templateStatus(_ statusCode: StatusCode) -> Data {
        json(TemplateStatusResponse(statusCode: statusCode, statusMessage: "", orchestrationUseCase: "RDNA_IDV_CHECK_TEMPLATE",
                                    result: statusCode == 100, attemptsLeft: 5, userID: userID))
    }

    static var transaction: Data {
        json(IDVTransactionInfo(idvAuditTransactionID: transactionID, workflow: 8, challengeMode: 25,
                                orchestrationUseCase: "RDNA_IDV_POSTLOGIN_IDV_SELFIE_BIOMETRIC", reason: "Approve payment",
                                state: "awaiting_confirmation", expiresAt: Date().addingTimeInterval(300), result: nil))
    }

    static var challenge: Data {
        json(LivenessChallengeInfo(idvAuditTransactionID: transactionID, workflow: 8, nonce: "nonce",
                                   actions: [LivenessActionInfo(action: "blink", instruction: "Blink")], minDurationMs: 500,
                                   maxDurationMs: 8000, minFrames: 1, maxFrames: 60, maxFrameBytes: 1 << 20,
                                   expiresAt: Date().addingTimeInterval(60)))
    }

    /// A workflow 8 result: 100 with `display`, 240 cancelled, 153 locked, 600 no template.
    static func result(_ statusCode: StatusCode, display: DisplayText? = nil, attemptsLeft: Int = 5) -> Data {
        let now = Int64(Date().timeIntervalSince1970)
        return json(IDVResultResponse(
            statusCode: statusCode, statusMessage: "", userID: userID, workflow: 8, challengeMode: 25, purpose: "Approve payment",
            attempts: statusCode == 240 ? 0 : 1, attemptsLeft: attemptsLeft,
            biometricResult: display.map { BiometricResultInfo(displayText: $0) },
            idvAuditInfo: IDVAuditInfo(status: display == .matched ? .success : .failure, idvAuditTransactionID: transactionID,
                                       orchestrationUseCase: "RDNA_IDV_POSTLOGIN_IDV_SELFIE_BIOMETRIC", reason: "Approve payment",
                                       auditMetrics: AuditMetrics(startTimestamp: now, endTimestamp: now)),
            templateCreated: false))
    }

    static let transactionPath = "/v1/idv/transactions/\(transactionID)"

    /// A server for one workflow 8 transaction: start, confirm (the challenge), cancel and
    /// frames answer as given.
    static func selfieServer(cancel: StubHTTPServer.Answer = .init(200, result(240)),
                             frames: StubHTTPServer.Answer = .init(200, result(100, display: "MATCHED"))) throws -> StubHTTPServer {
        try StubHTTPServer { method, path in
            switch (method, path) {
            case ("POST", "/v1/idv/transactions"): .init(201, transaction)
            case ("POST", transactionPath + "/confirm"): .init(200, challenge)
            case ("POST", transactionPath + "/cancel"): cancel
            case ("POST", transactionPath + "/frames"): frames
            default: .init(404, envelope("not_found", "No such route."))
            }
        }
    }

    /// A signed-in client of `server` with its own event queue and key directory.
    static func client(_ server: URL, frameSource: (any FrameSource)? = OneFrameCamera(), keyStore: (any DeviceKeyStore)? = nil,
                       startConfirmationTimeout: TimeInterval = 60) throws -> CustosClient {
        let keys = keyStore ?? FileDeviceKeyStore(directory: FileManager.default.temporaryDirectory
            .appendingPathComponent("custos-sdk-contract-\(UUID().uuidString)"))
        let client = try CustosClient(configuration: .init(
            serverURL: server, timeout: 300, keyStore: keys, eventQueue: DispatchQueue(label: "test.sdk.events"),
            frameSource: frameSource, startConfirmationTimeout: startConfirmationTimeout))
        client.restore(SessionState(userID: userID, deviceID: "d1", sessionToken: sessionToken))
        return client
    }

    /// What `call` threw, as the SDK reports it (nil: it returned).
    static func thrownError(_ call: () async throws -> Any) async -> CustosError? {
        do {
            _ = try await call()
            return nil
        } catch let error as CustosError {
            return error
        } catch {
            return CustosError(error)
        }
    }
}

/// A camera that films one frame at once.
struct OneFrameCamera: FrameSource {
    func capture(_ request: CaptureRequest) async throws -> [CapturedImage] {
        [CapturedImage(capturedAtMs: 0, jpeg: Data([0xFF, 0xD8, 0xFF, 0xD9]))]
    }
}

/// A camera that fails (the user closed it, the hardware gave up).
struct BrokenCamera: FrameSource {
    struct Closed: Error {}
    func capture(_ request: CaptureRequest) async throws -> [CapturedImage] { throw Closed() }
}

/// A camera that says when it starts and then films until its task is cancelled.
struct EndlessCamera: FrameSource {
    let started: @Sendable () -> Void
    func capture(_ request: CaptureRequest) async throws -> [CapturedImage] {
        started()
        try await Task.sleep(for: .seconds(3600))
        return []
    }
}

/// A key store whose every operation fails with an error of its own.
struct FailingKeyStore: DeviceKeyStore {
    struct Broken: Error, CustomStringConvertible {
        var description: String { "the key store is broken" }
    }
    func key(for account: String) throws -> (any DeviceSigningKey)? { throw Broken() }
    func createKey(for account: String) throws -> any DeviceSigningKey { throw Broken() }
    func moveKey(from staging: String, to account: String) throws { throw Broken() }
    func deleteKey(for account: String) throws { throw Broken() }
    func binding(for server: String) throws -> DeviceBinding? { throw Broken() }
    func saveBinding(_ binding: DeviceBinding) throws { throw Broken() }
    func deleteBinding(for server: String) throws { throw Broken() }
}
