import CustosAPI
import CustosCore
import CustosSDK
import CustosTestSupport
import Foundation
import Synchronization
import Testing

/// The seed's SDK contract against the real server: failures reach the events with a
/// non-zero `longErrorCode`, 153 logs the user off, and every way out of a selfie is 240.
/// (The SDK's own tests, over a stub server, go through every failure path.)
///
/// The limit catches a hang, not slowness: it counts the time a test waits for a thread while
/// every suite runs in parallel on two cores (minutes under `make test`; seconds alone).
@Suite(.timeLimit(.minutes(10))) struct SDKContractTests {
    /// An event's first matching payload. The handler is chained (it hides nothing from the
    /// handler below) and resumes the wait: no sleeping; the suite's time limit cancels a
    /// wait for an event that never comes.
    final class FirstEvent<Payload: Sendable>: Sendable {
        private let state = Mutex<(value: Payload?, waiter: CheckedContinuation<Payload, any Error>?)>((nil, nil))
        private let token = Mutex<HandlerToken?>(nil)

        init(_ client: CustosClient, _ event: CustosEvent<Payload>, where matches: @escaping @Sendable (Payload) -> Bool = { _ in true }) {
            let installed = client.events.chain(event) { [weak self] payload, previous in
                previous(payload)
                guard matches(payload) else { return }
                self?.deliver(payload)
            }
            token.withLock { $0 = installed }
        }

        private func deliver(_ payload: Payload) {
            let waiter = state.withLock { state -> CheckedContinuation<Payload, any Error>? in
                guard state.value == nil else { return nil }
                state.value = payload
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: payload)
        }

        var value: Payload {
            get async throws {
                try await withTaskCancellationHandler {
                    try await withCheckedThrowingContinuation { continuation in
                        let outcome = state.withLock { state -> Result<Payload, any Error>? in
                            if let value = state.value { return .success(value) }
                            if Task.isCancelled { return .failure(CancellationError()) }
                            state.waiter = continuation
                            return nil
                        }
                        if let outcome { continuation.resume(with: outcome) }
                    }
                } onCancel: {
                    let waiter = state.withLock { state in
                        defer { state.waiter = nil }
                        return state.waiter
                    }
                    waiter?.resume(throwing: CancellationError())
                }
            }
        }
    }

    @Test(arguments: StoreKind.available)
    func theLoginThatLocksTheUserLogsItOff(kind: StoreKind) async throws {
        let live = try LiveServer.make(kind)
        defer { live.stop() }
        let (client, userID, deviceID) = try await IdentityFlowTests.activatedUser(live)
        #expect(client.session.sessionToken != nil)
        let loggedOff = FirstEvent(client, .onUserLoggedOff)
        let locked = FirstEvent(client, .onUserLoggedIn) { $0.response?.statusCode == 153 }

        var last: AuthenticationResult?
        for _ in 0..<5 { last = try await client.login(userID: userID, deviceID: deviceID, password: "wrong password!") }

        #expect(last?.statusCode == 153)
        let login = try await locked.value
        #expect(login.error == nil && login.userID == userID)
        let logoff = try await loggedOff.value
        #expect(logoff.statusCode == 153 && logoff.error == nil && logoff.userID == userID)
        #expect(client.session.sessionToken == nil && client.session.deviceID == deviceID)
    }

    @Test func aTemplateCheckTheServerCannotServeReachesTheEvent() async throws {
        let live = try LiveServer.sqlite()   // without server biometrics
        defer { live.stop() }
        let (client, userID, _) = try await IdentityFlowTests.activatedUser(live)
        let status = FirstEvent(client, .onIDVCheckUserBiometricTemplateStatus)
        await expectError("idv_unavailable") { try await client.checkIDVUserBiometricTemplateStatus() }
        let event = try await status.value
        #expect(event.error?.code == "idv_unavailable" && event.error?.longErrorCode == 503)
        #expect(event.response == nil && event.userID == userID)
        // A switched-off feature is no outage: nothing is logged at error level for it.
        #expect(!live.log.lines.contains { $0.contains("\"level\":\"error\"") }, "\(live.log.lines.filter { $0.contains("error") })")
    }

    @Test func aLogoutTheServerCannotHearKeepsTheSession() async throws {
        let live = try LiveServer(store: LiveServer.store(.sqlite), transport: .socket)
        let (client, _, _) = try await IdentityFlowTests.activatedUser(live)
        live.stop()
        let token = client.session.sessionToken
        let loggedOff = FirstEvent(client, .onUserLoggedOff)
        await #expect(throws: CustosError.transportFailed) { try await client.logout() }
        let event = try await loggedOff.value
        #expect(event.error?.longErrorCode == 901 && event.statusCode == nil)
        #expect(client.session.sessionToken == token)
    }
}

/// The 240 path on the real server (opt-in, workflow 10, so no template is needed first):
/// declined before the challenge uses no attempt; abandoned after it uses one. The time limit is
/// `SDKContractTests`'s.
@Suite(needsFaces, .timeLimit(.minutes(10))) struct SDKSelfieContractTests {
    struct ClosedCamera: FrameSource {
        struct Closed: Error {}
        func capture(_ request: CaptureRequest) async throws -> [CapturedImage] { throw Closed() }
    }

    /// An activated user's client with its own start confirmation timeout.
    func client(_ live: LiveServer, startConfirmationTimeout: TimeInterval = 60,
                frameSource: (any FrameSource)? = ClosedCamera()) async throws -> CustosClient {
        let userID = "user-\(UUID().uuidString.prefix(8))"
        let created = try await live.admin().createUser(userID)
        let keys = FileManager.default.temporaryDirectory.appendingPathComponent("custos-keys-\(UUID().uuidString)")
        let client = try CustosClient(configuration: .init(serverURL: live.baseURL, timeout: TestEnvironment.requestTimeout, keyStore: FileDeviceKeyStore(directory: keys),
                                                           frameSource: frameSource, startConfirmationTimeout: startConfirmationTimeout))
        _ = try await client.activate(userID: userID, activationCode: created.activation.activationCode,
                                      password: IdentityFlowTests.password, deviceName: "test phone")
        return client
    }

    @Test(arguments: StoreKind.available)
    func declinedUnansweredAndAbandonedSelfiesAll240(kind: StoreKind) async throws {
        let live = try LiveServer(store: LiveServer.store(kind), idv: IDVPolicies.only(.blink))
        defer { live.stop() }

        // Declined: no attempt used.
        let declining = try await client(live)
        let declineToken = declining.events.on(.onGetIDVSelfieProcessStartConfirmation) { request in
            declining.setIDVSelfieProcessStartConfirmation(false, workflow: request.workflow)
        }
        let declinedEvent = SDKContractTests.FirstEvent(declining, .onIDVBiometricOptInResult)
        let declined = try await declining.initiateIDVBiometricOptIn(consentVersion: "v1")
        #expect(declined.statusCode == 240 && declined.attemptsLeft == 5)
        #expect(try await declinedEvent.value.error?.longErrorCode == 240)
        declineToken.remove()

        // Unanswered: cancelled once the timeout passes, no attempt used.
        let waiting = try await client(live, startConfirmationTimeout: 0.5)
        let askedToken = waiting.events.on(.onGetIDVSelfieProcessStartConfirmation) { _ in }
        let unanswered = try await waiting.initiateIDVBiometricOptIn(consentVersion: "v1")
        #expect(unanswered.statusCode == 240 && unanswered.attemptsLeft == 5)
        askedToken.remove()

        // Abandoned after the challenge: the camera throws, the cancel uses an attempt.
        let abandoning = try await client(live)
        let abandonedEvent = SDKContractTests.FirstEvent(abandoning, .onIDVBiometricOptInResult)
        let abandoned = try await abandoning.initiateIDVBiometricOptIn(consentVersion: "v1")
        #expect(abandoned.statusCode == 240 && abandoned.attemptsLeft == 4)
        let event = try await abandonedEvent.value
        #expect(event.error == .userCancelled && event.response?.statusCode == 240)
    }
}
