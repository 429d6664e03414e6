import CustosAPI
import CustosCore
import CustosSDK
import CustosTestSupport
import Foundation
import Testing

/// No secret the server handles reaches its log: a full session (activation, wrong and right
/// passwords, a password change, a registration code, a level-1 step-up with a webhook, an
/// OpenID sign-in with its code and tokens, a selfie) and then every secret it used, and the
/// selfie's JPEG bytes, are looked for in every log line.
@Suite(needsFaces) struct SecretsNotLoggedTests {
    @Test func aFullSessionLeavesNoSecretInTheServersLog() async throws {
        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        let live = try LiveServer(store: LiveServer.store(.sqlite), idv: IDVFlowTests.blinkOnly, resultDetail: false, webhooks: true, transport: .socket) {
            WebhookDeliveryTests.fast(&$0)
        }
        defer { live.stop() }
        let rp = try live.admin()
        let (_, adminSecret) = try live.apiKeys.create(scope: .admin, label: "ops", actor: "test")
        var secrets = ["rp key": live.relyingPartySecret, "admin key": adminSecret, "password": IdentityFlowTests.password,
                       "webhook secret": try await rp.webhookSecret().secret]

        // Activation, a wrong password, a password change, a login with the new password.
        let userID = "user-\(UUID().uuidString.prefix(8))"
        let created = try await rp.createUser(userID)
        secrets["activation code"] = created.activation.activationCode
        let keys = FileManager.default.temporaryDirectory.appendingPathComponent("custos-keys-\(UUID().uuidString)")
        let phone = try live.client(keys: keys)
        let activated = try await phone.activate(userID: userID, activationCode: created.activation.activationCode,
                                                 password: IdentityFlowTests.password, deviceName: "phone")
        let deviceID = try #require(activated.deviceID)
        secrets["first session"] = try #require(phone.session.sessionToken)
        let wrongPassword = "a wrong guess 31337"
        #expect(try await phone.login(userID: userID, deviceID: deviceID, password: wrongPassword).statusCode == 401)
        secrets["wrong password"] = wrongPassword
        let newPassword = "the new secret 4242"
        #expect(try await phone.changePassword(userID: userID, oldPassword: IdentityFlowTests.password, newPassword: newPassword).statusCode == 100)
        secrets["new password"] = newPassword
        #expect(try await phone.login(userID: userID, deviceID: deviceID, password: newPassword).statusCode == 100)
        secrets["second session"] = try #require(phone.session.sessionToken)
        secrets["registration code"] = try await rp.issueRegistrationCode(userID).registrationCode

        // A level-1 step-up answered with the password, its result delivered by webhook.
        let sent = try await rp.createNotification(CreateNotificationRequest(
            userID: userID, subject: "Payment", message: "Approve 10 EUR?",
            actions: [NotificationAction(label: "Approve", action: "approve", authLevel: .password)], callbackURL: receiver.url))
        let (answered, _) = try await RawAPI(base: live.baseURL).postData(
            "/v1/notifications/\(sent.notificationUUID)/actions", UpdateNotificationRequest(action: "approve", password: newPassword),
            bearer: secrets["second session"])
        #expect(answered == 200)
        #expect(await receiver.wait { !$0.isEmpty })

        // An OpenID sign-in from the bound device: the code and every token.
        let oidcClient = try await live.admin(scope: .admin).createOIDCClient(CreateOIDCClientRequest(
            name: "Example app", clientType: "public", redirectURIs: [SignInFixture.redirect]))
        let device = try live.client(keys: keys) { $0.clientID = oidcClient.clientID }
        device.restore(SessionState(userID: userID, deviceID: deviceID))
        let response = try await device.authenticateBoundUser(BoundUserAuthenticationRequest(redirectURI: SignInFixture.redirect))
        secrets["authorization code"] = try #require(URLComponents(string: response.location)?.queryItems?.first { $0.name == "code" }?.value)
        secrets["code verifier"] = try #require(response.codeVerifier)
        let tokens = try await device.exchangeToken(response)
        secrets["access token"] = tokens.accessToken
        secrets["refresh token"] = try #require(tokens.refreshToken)
        secrets["ID token"] = tokens.idToken

        // A selfie: its frames must not reach the log either (a JPEG's base64 starts "/9j/").
        let frames = try FaceFixture.frames("blink_selfie", 1...25)
        let enrolled = try await phone.initiateIDVBiometricOptIn(consentVersion: "v1", frameSource: RecordedFrames(
            frames: frames, framesPerSecond: FaceFixture.framesPerSecond("blink_selfie"), clock: live.clock))
        #expect(enrolled.templateCreated)

        let lines = live.log.lines
        // The log is not empty: every request above has its line, the webhook its attempt.
        #expect(lines.filter { $0.contains(#""event":"request""#) }.count >= 15)
        #expect(lines.contains { $0.contains(#""event":"webhook_attempt""#) })
        for (name, secret) in secrets {
            #expect(!lines.contains { $0.contains(secret) }, "the \(name) is in the server's log")
        }
        #expect(!lines.contains { $0.contains("/9j/") }, "a selfie frame is in the server's log")
        #expect(!lines.contains { $0.contains(frames[0].prefix(64).base64EncodedString()) })
    }
}
