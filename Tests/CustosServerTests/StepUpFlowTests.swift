import CustosAPI
import CustosConfiguration
import CustosCore
import CustosCrypto
import CustosSDK
import CustosServer
import CustosTestSupport
import Foundation
import Synchronization
import Testing

/// A user with a bound device and a relying party, on a live server.
struct StepUpFixture {
    let live: LiveServer
    let rp: CustosAdminClient
    /// The id of `rp`'s API key (the `aud` of its signed results).
    let rpKeyID: String
    let client: CustosClient
    let userID: String
    let deviceID: String

    static func make(_ kind: StoreKind, policy: IdentityPolicy = IdentityPolicy(), webhooks: Bool = false,
                     configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> StepUpFixture {
        let live = try LiveServer(store: LiveServer.store(kind), policy: policy, webhooks: webhooks, configure: configure)
        let (client, userID, deviceID) = try await IdentityFlowTests.activatedUser(live)
        let (key, secret) = try live.apiKeys.create(scope: .rp, label: "bank", actor: "test")
        return StepUpFixture(live: live, rp: try CustosAdminClient(serverURL: live.baseURL, apiKey: secret, timeout: TestEnvironment.requestTimeout), rpKeyID: key.id,
                             client: client, userID: userID, deviceID: deviceID)
    }

    static let payment = TransactionDetails(type: "payment", amount: "120.50", currency: "EUR", payee: "ACME Ltd")

    /// Sends a notification whose only actions are `approve` at `level` and `deny` at 0.
    func send(level: AuthLevel, details: TransactionDetails? = StepUpFixture.payment, numberMatching: Bool = false,
              callback: String? = nil, expiresIn: Int? = nil) async throws -> CreatedNotification {
        try await rp.createNotification(CreateNotificationRequest(
            userID: userID, subject: "Payment to ACME Ltd", message: "Approve 120.50 EUR to ACME Ltd?",
            actions: [NotificationAction(label: "Approve", action: "approve", authLevel: level),
                      NotificationAction(label: "Deny", action: "deny", authLevel: 0)],
            authorizationDetails: details, expiresIn: expiresIn, numberMatching: numberMatching, callbackURL: callback))
    }

    /// The notification as the app lists it.
    func shown(_ uuid: String) async throws -> NotificationInfo {
        try #require(try await client.getNotifications().notifications.first { $0.notificationUUID == uuid })
    }

    var bearer: String { client.session.sessionToken ?? "" }
    var api: RawAPI { RawAPI(base: live.baseURL) }

    /// Answers every `onGetPassword` with `password` (nil: gives up), counting the prompts.
    func answerPasswords(_ password: String?, prompts: Recorded<Int>) -> HandlerToken {
        client.events.on(.onGetPassword) { [client] request in
            prompts.append(request.attemptsLeft)
            #expect(request.challengeMode == 3)
            client.setPassword(password)
        }
    }
}

/// Values a handler records, for the test to read.
final class Recorded<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])
    func append(_ value: Value) { values.withLock { $0.append(value) } }
    func removeAll() { values.withLock { $0.removeAll() } }
    var all: [Value] { values.withLock { $0 } }
}

@Suite struct StepUpFlowTests {
    @Test(arguments: StoreKind.available)
    func levelZeroIsAnsweredAtOnceAndTheResultIsSigned(kind: StoreKind) async throws {
        let fixture = try await StepUpFixture.make(kind)
        defer { fixture.live.stop() }
        let created = try await fixture.send(level: 0)
        #expect(created.notificationUUID.count == 32 && created.number == nil)

        let listedEvent = SDKContractTests.FirstEvent(fixture.client, .onGetNotifications)
        let listed = try await fixture.client.getNotifications()
        #expect(listed.statusCode == 100 && listed.notifications.map(\.notificationUUID) == [created.notificationUUID])
        #expect(try await listedEvent.value.response == listed)
        let shown = listed.notifications[0]
        #expect(shown.status == .pending && shown.authorizationDetails == StepUpFixture.payment && !shown.numberMatching)
        #expect(shown.actions.map(\.authLevel) == [0, 0])

        let pending = try await fixture.rp.notificationResult(created.notificationUUID)
        #expect(pending.status == .pending && pending.signedResult == nil && pending.action == nil)

        // The seed's form, by uuid; onUpdateNotification carries the same answer.
        let updatedEvent = SDKContractTests.FirstEvent(fixture.client, .onUpdateNotification)
        let answered = try await fixture.client.updateNotification(uuid: created.notificationUUID, action: "approve")
        #expect(answered.statusCode == 100 && answered.notification?.status == .answered && answered.notification?.achievedLevel == 0)
        let updated = try await updatedEvent.value
        #expect(updated.error == nil && updated.response == answered && updated.userID == fixture.userID)
        #expect(try await fixture.client.getNotifications().notifications.isEmpty)
        #expect(try await fixture.client.getNotificationHistory().notifications.first?.chosenAction == "approve")

        let result = try await fixture.rp.notificationResult(created.notificationUUID)
        #expect(result.status == .answered && result.action == "approve" && result.authLevel == 0 && result.userID == fixture.userID)
        let token = try #require(result.signedResult)
        let jwks = try JSONDecoder().decode(JWKSet.self, from: try await fixture.api.getData("/.well-known/jwks.json"))
        let kid = try #require(try JWS.unverifiedHeader(token).kid)
        let verified = try JWS.verify(token, key: try #require(jwks.key(withID: kid)).p256PublicKey())
        let claims = try JSONDecoder().decode(StepUpResultClaims.self, from: verified.payload)
        #expect(claims.notificationUUID == created.notificationUUID && claims.action == "approve" && claims.sub == fixture.userID)
        #expect(claims.aud == fixture.rpKeyID && claims.iss == LiveServer.verdictSigning.issuer)
        let expectedHash = Data(SHA256.hash(StepUpContent.detailsBytes(StepUpFixture.payment))).base64URLEncodedString
        #expect(claims.detailsSHA256 == expectedHash && result.detailsSHA256 == expectedHash)
        #expect(try JWS.unverifiedHeader(token).typ == NotificationService.resultType)

        // PyJWT, at the relying party: valid for its key and the details it sent; refused for
        // another key, other details, or a tampered token.
        if OutsideClients.shouldRun {
            let details = String(decoding: try JSONEncoder().encode(StepUpFixture.payment), as: UTF8.self)
            let verify = { (audience: String, token: String, details: String) in
                try OutsideClients.run("verify_step_up_result.py", ["--leeway", "5", fixture.live.baseURL.absoluteString + "/.well-known/jwks.json",
                                                                    LiveServer.verdictSigning.issuer, audience, token, details])
            }
            let outside = try verify(fixture.rpKeyID, token, details)
            #expect(outside.status == 0 && outside.output.contains(#""auth_level": 0"#), "\(outside.output)")
            #expect(try verify("another-key", token, details).status == 1)
            #expect(try verify(fixture.rpKeyID, token, details.replacingOccurrences(of: "120.50", with: "1.00")).status == 1)
            var parts = token.split(separator: ".").map(String.init)
            parts[1] = Data(#"{"sub":"mallory"}"#.utf8).base64URLEncodedString
            #expect(try verify(fixture.rpKeyID, parts.joined(separator: "."), details).status == 1)
        }

        // Answered once: a second answer, from any action, is refused.
        await expectError("notification_closed") { try await fixture.client.updateNotification(shown, action: "deny") }
    }

    @Test(arguments: StoreKind.available)
    func passwordStepUpUsesTheSharedAttemptsThenLocksAndLogsOff(kind: StoreKind) async throws {
        let fixture = try await StepUpFixture.make(kind)
        defer { fixture.live.stop() }
        let prompts = Recorded<Int>()

        // A wrong password is asked again with the attempts left, then the right one answers.
        let first = try await fixture.send(level: 1)
        let wrongThenRight = Mutex(["wrong password!", IdentityFlowTests.password])
        let token = fixture.client.events.on(.onGetPassword) { [client = fixture.client] request in
            prompts.append(request.attemptsLeft)
            client.setPassword(wrongThenRight.withLock { $0.removeFirst() })
        }
        let answered = try await fixture.client.updateNotification(try await fixture.shown(first.notificationUUID), action: "approve")
        #expect(answered.statusCode == 100 && answered.notification?.achievedLevel == 1)
        #expect(prompts.all == [5, 4])
        let result = try await fixture.rp.notificationResult(first.notificationUUID)
        #expect(result.authLevel == 1 && result.amr == ["pwd"])
        token.remove()

        // Wrong every time: 4 attempts left become 153, the session ends, onUserLoggedOff fires.
        let second = try await fixture.send(level: 1)
        prompts.removeAll()
        let wrong = fixture.answerPasswords("wrong password!", prompts: prompts)
        let loggedOff = SDKContractTests.FirstEvent(fixture.client, .onUserLoggedOff)
        let locked = try await fixture.client.updateNotification(try await fixture.shown(second.notificationUUID), action: "approve")
        #expect(locked.statusCode == 153 && locked.attemptsLeft == 0)
        // The first lock lasts the policy's base (5 minutes), and the answer says until when.
        let until = try #require(locked.lockedUntil, "153 says when the lock ends")
        #expect(abs(until.timeIntervalSince(fixture.live.clock.now()) - IdentityPolicy().lockoutBase) < 5)
        #expect(prompts.all == [5, 4, 3, 2, 1])
        #expect(try await loggedOff.value.statusCode == 153)
        #expect(fixture.client.session.sessionToken == nil)
        #expect(try await fixture.rp.notificationResult(second.notificationUUID).status == .pending)
        wrong.remove()
    }

    /// A dismissed password prompt is not the selfie's 240 (nor LDA's 131): its own code, 908,
    /// and the action stays open.
    @Test func aDismissedPasswordPromptHasItsOwnCodeAndTheNotificationStaysPending() async throws {
        let fixture = try await StepUpFixture.make(.sqlite)
        defer { fixture.live.stop() }
        let created = try await fixture.send(level: 1)
        let shown = try await fixture.shown(created.notificationUUID)
        let prompts = Recorded<Int>()
        let token = fixture.answerPasswords(nil, prompts: prompts)
        do {
            _ = try await fixture.client.updateNotification(shown, action: "approve")
            Issue.record("a dismissed prompt answered the notification")
        } catch let error as CustosError {
            #expect(error == .passwordPromptDismissed && error.longErrorCode == 908 && error.code == "password_prompt_dismissed")
            #expect(error != .userCancelled && error != .localAuthenticationCancelled)
        }
        #expect(prompts.all.count == 1)
        #expect(try await fixture.rp.notificationResult(created.notificationUUID).status == .pending)
        token.remove()
    }

    @Test(arguments: StoreKind.available)
    func deviceSignatureCoversWhatWasShown(kind: StoreKind) async throws {
        let fixture = try await StepUpFixture.make(kind)
        defer { fixture.live.stop() }

        // The local authentication is cancelled: 131, nothing sent, still pending.
        let created = try await fixture.send(level: 3)
        let shown = try await fixture.shown(created.notificationUUID)
        let cancelling = try CustosClient(configuration: {
            var configuration = fixture.client.configuration
            configuration.localAuthentication = { _ in false }
            return configuration
        }())
        cancelling.restore(fixture.client.session)
        let cancelled = SDKContractTests.FirstEvent(cancelling, .onUpdateNotification)
        await expectError("local_authentication_cancelled") { try await cancelling.updateNotification(shown, action: "approve") }
        #expect(try await cancelled.value.error?.longErrorCode == 131)
        #expect(try await fixture.rp.notificationResult(created.notificationUUID).status == .pending)

        // The app shows another amount than the relying party sent: the signature fails.
        var altered = shown
        altered.authorizationDetails?.amount = "1.00"
        let refused = try await fixture.client.updateNotification(altered, action: "approve")
        #expect(refused.statusCode == 401 && refused.attemptsLeft == 4)
        #expect(try await fixture.rp.notificationResult(created.notificationUUID).status == .pending)

        // What was shown, signed by the bound key: answered at level 3.
        let signed = try await fixture.client.updateNotification(shown, action: "approve")
        #expect(signed.statusCode == 100 && signed.notification?.achievedLevel == 3)
        let result = try await fixture.rp.notificationResult(created.notificationUUID)
        #expect(result.authLevel == 3 && result.amr == ["swk"])

        // A signature is never accepted for a level it does not prove, nor a password for level 3.
        let other = try await fixture.send(level: 3)
        let withPassword: UpdateNotificationResult = try await fixture.api.post(
            "/v1/notifications/\(other.notificationUUID)/actions",
            UpdateNotificationRequest(action: "approve", password: IdentityFlowTests.password), bearer: fixture.bearer)
        #expect(withPassword.statusCode == .stepUpRequired && withPassword.stepUp?.authLevel == 3)
        #expect(try await fixture.rp.notificationResult(other.notificationUUID).status == .pending)
    }

    @Test(arguments: StoreKind.available)
    func numberMatchingAndItsWrongPick(kind: StoreKind) async throws {
        let fixture = try await StepUpFixture.make(kind)
        defer { fixture.live.stop() }
        let created = try await fixture.send(level: 0, numberMatching: true)
        let number = try #require(created.number)
        #expect((10...99).contains(number))
        let shown = try await fixture.shown(created.notificationUUID)
        // The user types the number: the app is told only that it must, never shown candidates.
        #expect(shown.numberMatching)
        let raw = String(decoding: try await fixture.api.getData("/v1/notifications", bearer: fixture.bearer), as: UTF8.self)
        #expect(raw.contains("\"number_matching\":true") && !raw.contains("number_choices") && !raw.contains("\"number\":"), "\(raw)")

        await expectError("number_required") { try await fixture.client.updateNotification(shown, action: "approve") }
        let wrong = 10 + (number - 10 + 1) % 90
        await expectError("number_mismatch") { try await fixture.client.updateNotification(shown, action: "approve", number: wrong) }
        let result = try await fixture.rp.notificationResult(created.notificationUUID)
        #expect(result.status == .failed && result.signedResult != nil)
        await expectError("notification_closed") { try await fixture.client.updateNotification(shown, action: "approve", number: number) }

        let again = try await fixture.send(level: 0, numberMatching: true)
        let ok = try await fixture.client.updateNotification(try await fixture.shown(again.notificationUUID), action: "approve",
                                                             number: try #require(again.number))
        #expect(ok.statusCode == 100)
    }

    @Test(arguments: StoreKind.available)
    func expiryOtherUsersAndBadInput(kind: StoreKind) async throws {
        let fixture = try await StepUpFixture.make(kind)
        defer { fixture.live.stop() }
        let created = try await fixture.send(level: 0, expiresIn: 60)
        let shown = try await fixture.shown(created.notificationUUID)
        fixture.live.clock.advance(by: 61)
        await expectError("notification_expired") { try await fixture.client.updateNotification(shown, action: "approve") }
        let result = try await fixture.rp.notificationResult(created.notificationUUID)
        #expect(result.status == .expired && result.action == nil && result.signedResult != nil)

        // Another user's notification reads as not found; so does an unknown one.
        let mine = try await fixture.send(level: 0)
        let (stranger, _, _) = try await IdentityFlowTests.activatedUser(fixture.live)
        await expectError("notification_not_found") { try await stranger.updateNotification(try await fixture.shown(mine.notificationUUID), action: "approve") }
        let api = fixture.api
        let (unknown, _) = try await api.postRaw("/v1/notifications/\(String(repeating: "ab", count: 16))/actions",
                                                 UpdateNotificationRequest(action: "approve"), bearer: fixture.bearer)
        #expect(unknown == 404)
        let (noAction, envelope) = try await api.postRaw("/v1/notifications/\(mine.notificationUUID)/actions",
                                                         UpdateNotificationRequest(action: "transfer-all"), bearer: fixture.bearer)
        #expect(noAction == 422 && envelope.error.code == "invalid_field")

        // The relying party's mistakes are refused at creation.
        let bad: [(CreateNotificationRequest, String)] = [
            (CreateNotificationRequest(userID: fixture.userID, subject: "S", message: "M", actions: []), "invalid_field"),
            (CreateNotificationRequest(userID: fixture.userID, subject: "S", message: "M",
                                       actions: [NotificationAction(label: "Go", action: "go", authLevel: 7)]), "invalid_field"),
            (CreateNotificationRequest(userID: fixture.userID, subject: "S", message: "M",
                                       actions: [NotificationAction(label: "Go", action: "go", authLevel: 2)]), "auth_level_not_allowed"),
            (CreateNotificationRequest(userID: fixture.userID, subject: "S", message: "M",
                                       actions: [NotificationAction(label: "Go", action: "go", authLevel: 4)]), "idv_unavailable"),
            (CreateNotificationRequest(userID: fixture.userID, subject: "S", message: "M",
                                       actions: [NotificationAction(label: "Go", action: "go", authLevel: 0)],
                                       authorizationDetails: TransactionDetails(type: "payment", amount: "1e9")), "invalid_field"),
            (CreateNotificationRequest(userID: "nobody-here", subject: "S", message: "M",
                                       actions: [NotificationAction(label: "Go", action: "go", authLevel: 0)]), "user_not_found"),
        ]
        for (request, code) in bad {
            await expectError(code) { try await fixture.rp.createNotification(request) }
        }
    }

    @Test(arguments: StoreKind.available)
    func twentyConcurrentAnswersHaveOneWinner(kind: StoreKind) async throws {
        let fixture = try await StepUpFixture.make(kind)
        defer { fixture.live.stop() }
        let created = try await fixture.send(level: 0)
        let api = fixture.api
        let bearer = fixture.bearer
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<20 {
                group.addTask {
                    try await api.postData("/v1/notifications/\(created.notificationUUID)/actions",
                                           UpdateNotificationRequest(action: index % 2 == 0 ? "approve" : "deny"), bearer: bearer).0
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == 200 }.count == 1, "\(statuses)")
        #expect(statuses.filter { $0 == 409 }.count == 19, "\(statuses)")
        #expect(try await fixture.rp.notificationResult(created.notificationUUID).status == .answered)
    }

    @Test(arguments: StoreKind.available)
    func thePendingLimitAnswers429(kind: StoreKind) async throws {
        let fixture = try await StepUpFixture.make(kind) { $0.notifications.maximumPendingPerUser = 2 }
        defer { fixture.live.stop() }
        _ = try await fixture.send(level: 0)
        let second = try await fixture.send(level: 0)
        await expectError("too_many_pending") { try await fixture.send(level: 0) }
        _ = try await fixture.client.updateNotification(try await fixture.shown(second.notificationUUID), action: "deny")
        _ = try await fixture.send(level: 0)
    }
}
