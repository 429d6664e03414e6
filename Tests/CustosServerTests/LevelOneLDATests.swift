import CustosAPI
import CustosCore
import CustosSDK
import CustosTestSupport
import Foundation
import Testing

/// Seed 002's level 1: the device's local authentication (LDA) where the user enabled it, else
/// the password (challenge mode 3). LDA is the bound device key's signature over the
/// notification, made after the app's prompt; the result records what it proved (level 3,
/// `swk`), never the password.
@Suite struct LevelOneLDATests {
    /// A client of the fixture's user and device with LDA on and `approve` as its prompt.
    static func ldaClient(_ fixture: StepUpFixture, approve: @escaping @Sendable (LocalAuthenticationRequest) async -> Bool) throws -> CustosClient {
        let client = try CustosClient(configuration: {
            var configuration = fixture.client.configuration
            configuration.levelOneByLocalAuthentication = true
            configuration.localAuthentication = approve
            return configuration
        }())
        client.restore(fixture.client.session)
        return client
    }

    @Test(arguments: StoreKind.available)
    func theDevicesLocalAuthenticationAnswersLevelOneAndIsRecordedAsWhatItProved(kind: StoreKind) async throws {
        let fixture = try await StepUpFixture.make(kind)
        defer { fixture.live.stop() }
        let created = try await fixture.send(level: 1)
        let asked = Recorded<String>()
        let client = try Self.ldaClient(fixture) { request in
            asked.append("\(request.notificationUUID) \(request.action) \(request.reason)")
            return true
        }
        let prompts = Recorded<Int>()
        let passwords = client.events.on(.onGetPassword) { _ in prompts.append(0) }
        defer { passwords.remove() }
        // The server offers the signature beside the password to a bound device.
        let offered: UpdateNotificationResult = try await fixture.api.post("/v1/notifications/\(created.notificationUUID)/actions",
                                                                           UpdateNotificationRequest(action: "approve"), bearer: fixture.bearer)
        #expect(offered.statusCode == 102 && offered.stepUp?.challengeMode == 3 && offered.stepUp?.signatureAccepted == true)

        let answered = try await client.updateNotification(try await fixture.shown(created.notificationUUID), action: "approve")

        #expect(answered.statusCode == 100 && answered.notification?.achievedLevel == 3)
        #expect(asked.all == ["\(created.notificationUUID) approve Payment to ACME Ltd"])
        #expect(prompts.all.isEmpty, "no password was asked")
        let result = try await fixture.rp.notificationResult(created.notificationUUID)
        #expect(result.authLevel == 3 && result.amr == ["swk"])
    }

    /// The seed's 131: "Local device authentication was cancelled. Please try again." — the
    /// action stays open, and the retry answers it.
    @Test func cancellingThePromptIs131AndTheActionStaysOpenForARetry() async throws {
        let fixture = try await StepUpFixture.make(.sqlite)
        defer { fixture.live.stop() }
        let created = try await fixture.send(level: 1)
        let shown = try await fixture.shown(created.notificationUUID)
        let cancelling = try Self.ldaClient(fixture) { _ in false }
        let events = EventSequence(cancelling)

        await expectError("local_authentication_cancelled") { try await cancelling.updateNotification(shown, action: "approve") }

        #expect(await events.settled() == ["onUpdateNotification 131"])
        #expect(try await fixture.rp.notificationResult(created.notificationUUID).status == .pending)
        #expect(try fixture.live.identity.attemptsLeft(userID: fixture.userID, factor: .credentials) == 5, "a cancel uses no attempt")
        let retry = try Self.ldaClient(fixture) { _ in true }
        #expect(try await retry.updateNotification(uuid: created.notificationUUID, action: "approve").statusCode == 100)
    }

    /// A signature over other content (a tampered screen) is one of the shared attempts, and the
    /// SDK does not fall back to asking for the password.
    @Test func aSignatureOverOtherContentUsesAnAttemptWithoutAPasswordFallback() async throws {
        let fixture = try await StepUpFixture.make(.sqlite)
        defer { fixture.live.stop() }
        let created = try await fixture.send(level: 1)
        var altered = try await fixture.shown(created.notificationUUID)
        altered.message = "Approve 1.00 EUR to ACME Ltd?"
        let client = try Self.ldaClient(fixture) { _ in true }
        let prompts = Recorded<Int>()
        let passwords = client.events.on(.onGetPassword) { _ in prompts.append(0) }
        defer { passwords.remove() }

        let refused = try await client.updateNotification(altered, action: "approve")

        #expect(refused.statusCode == 401 && refused.attemptsLeft == 4)
        #expect(prompts.all.isEmpty)
        #expect(try await fixture.rp.notificationResult(created.notificationUUID).status == .pending)
        // Both proofs at once are refused before either is judged.
        let (status, error) = try await fixture.api.postRaw("/v1/notifications/\(created.notificationUUID)/actions", UpdateNotificationRequest(
            action: "approve", password: IdentityFlowTests.password, signature: String(repeating: "A", count: 86)), bearer: fixture.bearer)
        #expect(status == 422 && error.error.code == "invalid_field", "\(error)")
    }

    /// Without LDA (the default, or no prompt to show) level 1 is the password, as before.
    @Test func withoutLDAOrItsPromptLevelOneIsThePassword() async throws {
        let fixture = try await StepUpFixture.make(.sqlite)
        defer { fixture.live.stop() }
        for configure: (inout CustosClient.Configuration) -> Void in [{ $0.localAuthentication = { _ in true } },
                                                                     { $0.levelOneByLocalAuthentication = true }] {
            let created = try await fixture.send(level: 1)
            var configuration = fixture.client.configuration
            configure(&configuration)
            let client = try CustosClient(configuration: configuration)
            client.restore(fixture.client.session)
            let prompts = Recorded<Int>()
            let passwords = client.events.on(.onGetPassword) { [client] request in
                prompts.append(request.challengeMode.rawValue)
                client.setPassword(IdentityFlowTests.password)
            }
            let answered = try await client.updateNotification(try await fixture.shown(created.notificationUUID), action: "approve")
            #expect(answered.statusCode == 100 && answered.notification?.achievedLevel == 1)
            #expect(prompts.all == [3])
            #expect(try await fixture.rp.notificationResult(created.notificationUUID).amr == ["pwd"])
            passwords.remove()
        }
    }

    /// A device the password alone bound proves only the password: no signature is offered
    /// to it at level 1, and one it sends is refused.
    @Test func aPasswordBoundDeviceIsOfferedAndAllowedOnlyThePassword() async throws {
        let fixture = try await SignInFixture.make(.sqlite) { $0.identity.passwordRegistration = true }
        defer { fixture.live.stop() }
        let (_, _, session) = try await fixture.passwordBoundDevice(name: "tablet")
        let api = RawAPI(base: fixture.live.baseURL)
        let sent = try await fixture.live.admin().createNotification(CreateNotificationRequest(
            userID: fixture.userID, subject: "Pay", message: "Pay 10 EUR?",
            actions: [NotificationAction(label: "Approve", action: "approve", authLevel: .password)]))
        let path = "/v1/notifications/\(sent.notificationUUID)/actions"

        let offered: UpdateNotificationResult = try await api.post(path, UpdateNotificationRequest(action: "approve"), bearer: session)
        #expect(offered.statusCode == 102 && offered.stepUp?.challengeMode == 3 && offered.stepUp?.signatureAccepted == nil)
        let (status, refused) = try await api.postRaw(path, UpdateNotificationRequest(action: "approve", signature: String(repeating: "A", count: 86)),
                                                      bearer: session)
        #expect(status == 403 && refused.error.code == "device_not_confirmed", "\(refused)")
    }
}
