import CustosAPI
import CustosCore
import CustosFace
import CustosSDK
import CustosTestSupport
import Foundation
import Testing

/// The events of a client in the order the app gets them, as `name status`: the answer's
/// `status_code`, or the error's `longErrorCode` when the event carries no answer.
final class EventSequence: Sendable {
    private let entries = Recorded<String>()
    private let tokens: [HandlerToken]
    private let client: CustosClient

    init(_ client: CustosClient) {
        self.client = client
        let entries = self.entries
        func watch<Payload>(_ event: CustosEvent<Payload>, _ code: @escaping @Sendable (Payload) -> Int?) -> HandlerToken {
            // Chained, so the app's own handlers below still run.
            client.events.chain(event) { payload, previous in
                entries.append("\(event.name) \(code(payload).map(String.init) ?? "-")")
                previous(payload)
            }
        }
        @Sendable func result(_ event: IDVResultEvent) -> Int? { event.response.map { $0.statusCode.rawValue } ?? event.error?.longErrorCode }
        tokens = [
            watch(.onUpdateNotification) { $0.response.map { $0.statusCode.rawValue } ?? $0.error?.longErrorCode },
            watch(.onUserLoggedOff) { $0.statusCode?.rawValue ?? $0.error?.longErrorCode },
            watch(.onUserLoggedIn) { $0.response.map { $0.statusCode.rawValue } ?? $0.error?.longErrorCode },
            watch(.onIDVServerBiometricAuthenticationResult, result),
            watch(.onIDVBiometricOptInResult, result),
            watch(.onActivatedCustomerKYCResponse, result),
            watch(.onIDVAdditionalDocumentScanResult, result),
        ]
    }

    /// Everything delivered so far, once the client's event queue has run what was emitted.
    func settled() async -> [String] {
        await withCheckedContinuation { continuation in client.events.queue.async { continuation.resume() } }
        return entries.all
    }

    /// Forgets what was delivered, once everything emitted so far has been.
    func reset() async {
        _ = await settled()
        entries.removeAll()
    }
}

/// The seeds' order, on a real server through the SDK: a call's own event with 153 (or 110)
/// first, and only then `onUserLoggedOff` with the same status — the seed's app shows its
/// alert before it tears the screen down. Each user here has one attempt, so the first
/// failure is the last.
@Suite struct SeedOrderTests {
    static func oneAttempt() -> IdentityPolicy {
        var policy = IdentityPolicy()
        policy.maximumAttempts = 1
        return policy
    }

    static func camera(_ live: LiveServer, _ frames: [Data]) -> RecordedFrames {
        RecordedFrames(frames: frames, framesPerSecond: 12, clock: live.clock)
    }

    /// A photo held up to the camera: the liveness check fails and uses the attempt.
    static func stillPhoto(_ live: LiveServer) throws -> RecordedFrames {
        camera(live, PresentationAttacks.repeatedFrame(try FaceFixture.frames("blink_selfie", 30...30)[0], count: 6))
    }

    /// Confirms every selfie and document-scan start, as the seed's dashboard does.
    static func confirmStarts(_ client: CustosClient) -> [HandlerToken] {
        [client.events.on(.onGetIDVSelfieProcessStartConfirmation) { [client] in
            client.setIDVSelfieProcessStartConfirmation(true, workflow: $0.workflow)
         },
         client.events.on(.onGetIDVDocumentScanProcessStartConfirmation) { [client] in
            client.setIDVDocumentScanProcessStartConfirmation(true, workflow: $0.workflow)
         }]
    }

    /// Checks the seed's order and that the session is over on both sides.
    static func expectLockedInOrder(_ events: EventSequence, _ resultEvent: String, _ client: CustosClient, bearer: String?,
                                    live: LiveServer) async throws {
        #expect(await events.settled() == ["\(resultEvent) 153", "onUserLoggedOff 153"])
        #expect(client.session.sessionToken == nil)
        let (status, _) = try await RawAPI(base: live.baseURL).getStatus("/v1/notifications", bearer: bearer)
        #expect(status == 401, "the server ended the session")
    }

    enum Level: Int, CaseIterable, Sendable { case password = 1, device = 3, selfie = 4 }

    @Test(needsFaces, arguments: Level.allCases)
    func aStepUpThatUsesTheLastAttemptAnswers153ThenLogsOff(level: Level) async throws {
        let live = try LiveServer(store: LiveServer.store(.sqlite), policy: Self.oneAttempt(), idv: IDVPolicies.only(.blink))
        defer { live.stop() }
        let (client, userID) = level == .selfie ? try await live.enrolledUser() : try await {
            let (client, userID, _) = try await IdentityFlowTests.activatedUser(live)
            return (client, userID)
        }()
        let rp = try live.admin()
        let created = try await rp.createNotification(CreateNotificationRequest(
            userID: userID, subject: "Payment to ACME Ltd", message: "Approve 120.50 EUR to ACME Ltd?",
            actions: [NotificationAction(label: "Approve", action: "approve", authLevel: AuthLevel(rawValue: level.rawValue))]))
        var shown = try #require(try await client.getNotifications().notifications.first { $0.notificationUUID == created.notificationUUID })
        let passwords = client.events.on(.onGetPassword) { [client] _ in client.setPassword("wrong password!") }
        let starts = Self.confirmStarts(client)
        defer { passwords.remove(); starts.forEach { $0.remove() } }
        // Level 3: a signature over other content than was sent (a tampered screen).
        if level == .device { shown.message = "Approve 1.00 EUR?" }
        let bearer = client.session.sessionToken
        let events = EventSequence(client)

        let answer = try await client.updateNotification(shown, action: "approve", frameSource: Self.stillPhoto(live))

        #expect(answer.statusCode == 153 && answer.attemptsLeft == 0, "\(answer)")
        try await Self.expectLockedInOrder(events, "onUpdateNotification", client, bearer: bearer, live: live)
        #expect(try await rp.notificationResult(created.notificationUUID).status == .pending)
    }

    /// The IDV workflows the app starts, each failed once with its one attempt.
    enum Workflow: String, CaseIterable, Sendable { case kyc6, documentScan7, authentication8, optIn10 }

    @Test(needsFaces, arguments: Workflow.allCases)
    func aWorkflowThatUsesTheLastAttemptAnswers153ThenLogsOff(workflow: Workflow) async throws {
        let live = try LiveServer(store: LiveServer.store(.sqlite), policy: Self.oneAttempt(), idv: IDVPolicies.only(.blink))
        defer { live.stop() }
        let enrolled = workflow == .documentScan7 || workflow == .authentication8
        let client = enrolled ? try await live.enrolledUser().client : try await IdentityFlowTests.activatedUser(live).client
        let starts = Self.confirmStarts(client)
        defer { starts.forEach { $0.remove() } }
        let bearer = client.session.sessionToken
        let events = EventSequence(client)

        let (result, event): (IDVResultResponse, String) = switch workflow {
        case .kyc6:
            (try await client.initiateActivatedCustomerKYC(documentImage: try DocumentScanTests.someoneElse(), consentVersion: "kyc-2",
                                                           frameSource: RecordedFrames(frames: try FaceFixture.frames("blink_selfie", 38...50),
                                                                                       framesPerSecond: 12, clock: live.clock)),
             "onActivatedCustomerKYCResponse")
        case .documentScan7:
            (try await client.initiateIDVAdditionalDocumentScan(reason: "Someone else's passport", front: try DocumentScanTests.someoneElse()),
             "onIDVAdditionalDocumentScanResult")
        case .authentication8:
            (try await client.initiateIDVServerBiometricAuthentication(reason: "Approve payment", frameSource: Self.stillPhoto(live)),
             "onIDVServerBiometricAuthenticationResult")
        case .optIn10:
            (try await client.initiateIDVBiometricOptIn(consentVersion: "v1", frameSource: Self.stillPhoto(live)), "onIDVBiometricOptInResult")
        }

        #expect(result.statusCode == 153 && result.attemptsLeft == 0, "\(result.statusCode) \(String(describing: result.biometricResult))")
        try await Self.expectLockedInOrder(events, event, client, bearer: bearer, live: live)
    }

    /// Seed 002's `statusCode == 110`: the alert, then the log-off. The user then signs in
    /// again, which answers 110 with the token for the password change, and answers.
    @Test(arguments: StoreKind.available)
    func anExpiredPasswordAnswers110ThenLogsOffAndTheUserChangesIt(kind: StoreKind) async throws {
        var policy = IdentityPolicy()
        policy.passwordMaximumAge = 3600
        let fixture = try await StepUpFixture.make(kind, policy: policy)
        defer { fixture.live.stop() }
        let client = fixture.client
        let created = try await fixture.send(level: 1, expiresIn: 86400)
        let shown = try await fixture.shown(created.notificationUUID)
        // The session outlives the password's age only if it stays active: keep it alive.
        for _ in 0..<3 {
            fixture.live.clock.advance(by: 1500)
            _ = try await client.getNotifications()
        }
        let prompts = Recorded<Int>()
        let token = fixture.answerPasswords(IdentityFlowTests.password, prompts: prompts)
        defer { token.remove() }
        let bearer = fixture.bearer
        let events = EventSequence(client)

        let expired = try await client.updateNotification(shown, action: "approve")

        #expect(expired.statusCode == 110 && expired.stepUp == nil)
        #expect(await events.settled() == ["onUpdateNotification 110", "onUserLoggedOff 110"])
        #expect(client.session.sessionToken == nil && client.session.userID == fixture.userID)
        let (status, _) = try await fixture.api.getStatus("/v1/notifications", bearer: bearer)
        #expect(status == 401, "the server ended the session")
        #expect(try await fixture.rp.notificationResult(created.notificationUUID).status == .pending)

        // What docs/relying-parties.md tells the user: sign in, change the password with the 110's token, sign in, answer.
        let login = try await client.login(userID: fixture.userID, deviceID: fixture.deviceID, password: IdentityFlowTests.password)
        #expect(login.statusCode == 110)
        let changeToken = try #require(login.passwordChangeToken)
        let newPassword = "a brand new long passphrase"
        let changed = try await client.changePassword(userID: fixture.userID, oldPassword: IdentityFlowTests.password, newPassword: newPassword,
                                                      passwordChangeToken: changeToken)
        #expect(changed.statusCode == 100)
        #expect(try await client.login(userID: fixture.userID, deviceID: fixture.deviceID, password: newPassword).statusCode == 100)
        token.remove()
        let fresh = fixture.answerPasswords(newPassword, prompts: prompts)
        defer { fresh.remove() }
        await events.reset()
        let answered = try await client.updateNotification(uuid: created.notificationUUID, action: "approve")
        #expect(answered.statusCode == 100 && answered.notification?.achievedLevel == 1)
        #expect(await events.settled() == ["onUpdateNotification 100"])
    }
}
