import CustosAPI
import CustosCore
import CustosSDK
import Foundation
import Synchronization
import Testing

/// The app of `SeedApp`, screen by screen, against a live server: what each screen shows is
/// what the seeds describe.
@Suite(needsFaces) struct SeedAppTests {
    @Test func theSeedsScreensShowWhatTheSeedsDescribe() async throws {
        var policy = IdentityPolicy()
        policy.maximumAttempts = 2
        let live = try LiveServer(store: LiveServer.store(.sqlite), policy: policy, idv: IDVPolicies.only(.blink), transport: .socket)
        defer { live.stop() }
        let (client, userID, _) = try await IdentityFlowTests.activatedUser(live)
        let typed = Mutex<String?>(IdentityFlowTests.password)
        let app = SeedApp(client) { typed.withLock { $0 } }
        defer { app.removeHandlers() }
        let camera = { (range: ClosedRange<Int>) in
            RecordedFrames(frames: try FaceFixture.frames("blink_selfie", range), framesPerSecond: 12, clock: live.clock)
        }

        // Seed 000, scenario 2: no template — the red banner, the button off.
        var shown = await app.showBiometricScreen()
        #expect(shown.bannerOK == false && !shown.buttonEnabled && shown.templateStatus.hasSuffix("(Code: 600)"), "\(shown)")

        // Opt in, come back: the green banner, the button on.
        _ = try await client.initiateIDVBiometricOptIn(consentVersion: "v1", frameSource: try camera(1...25))
        shown = await app.showBiometricScreen()
        #expect(shown.bannerOK == true && shown.buttonEnabled && shown.buttonTitle == "Start Authentication" && shown.templateStatus.hasSuffix("(Code: 100)"))

        // Scenario 1: a live selfie — the success alert with the seed's four lines.
        shown = await app.startAuthentication(try camera(38...50))
        let success = try #require(shown.alerts.last)
        #expect(success.title == "✅ Authentication Success", "\(success)")
        #expect(success.message.hasPrefix("Biometric Result: MATCHED\nUse Case: RDNA_IDV_POSTLOGIN_IDV_SELFIE_BIOMETRIC\nTransaction ID: "))
        #expect(success.message.hasSuffix("Attempts Left: 2"))

        // Scenario 3: the user closes the confirmation — Authentication Error with code 240.
        let decline = client.events.on(.onGetIDVSelfieProcessStartConfirmation) { [client] in
            client.setIDVSelfieProcessStartConfirmation(false, workflow: $0.workflow)
        }
        shown = await app.startAuthentication(try camera(60...72))
        decline.remove()
        let cancelled = try #require(shown.alerts.last)
        #expect(cancelled.title == "Authentication Error" && cancelled.message.hasSuffix("\n\nError Code: 240"), "\(cancelled)")
        #expect(shown.buttonEnabled, "the button is back on: the user can retry")

        // Seed 002: a level-1 notification, the password in the step-up modal — Success.
        let rp = try live.admin()
        func send() async throws -> String {
            try await rp.createNotification(CreateNotificationRequest(
                userID: userID, subject: "Payment to ACME Ltd", message: "Approve 120.50 EUR?",
                actions: [NotificationAction(label: "Approve", action: "approve", authLevel: .password)])).notificationUUID
        }
        shown = await app.answer(try await send(), action: "approve")
        #expect(shown.alerts.last?.title == "Success" && !shown.actionModalOpen && !shown.stepUpModalOpen, "\(shown.alerts)")

        // Seed 004: the app starts again (a new client on the same key store) and signs the user
        // in with the bound device at once: the binding is found, the code comes back.
        let keys = try #require((client.configuration.keyStore as? FileDeviceKeyStore)?.directory)
        let oidc = try await live.admin(scope: .admin).createOIDCClient(CreateOIDCClientRequest(
            name: "Seed app", clientType: "public", redirectURIs: ["com.example.app:/callback"], encryptionJWK: nil))
        let atStart = { try live.client(keys: keys) { $0.clientID = oidc.clientID; $0.localAuthentication = { _ in true } } }
        let signedIn = try await atStart().authenticateBoundUser(BoundUserAuthenticationRequest(redirectURI: "com.example.app:/callback"))
        #expect(!signedIn.code.isEmpty && signedIn.location.hasPrefix("com.example.app:/callback?"))
        // A device bound to nobody: unknownUser without asking the server (the app shows registration).
        let stranger = try live.client { $0.clientID = oidc.clientID }
        await #expect(throws: CustosError.unknownUser) {
            try await stranger.authenticateBoundUser(BoundUserAuthenticationRequest(redirectURI: "com.example.app:/callback"))
        }

        // A wrong password twice: 401 then 153 — "Authentication Failed", then the log-off takes
        // the app to sign-in, in that order.
        typed.withLock { $0 = "wrong password!" }
        let before = shown.journal.count
        shown = await app.answer(try await send(), action: "approve")
        #expect(Array(shown.journal.dropFirst(before)) == ["alert: Authentication Failed", "screen: login"], "\(shown.journal)")
        #expect(client.session.sessionToken == nil)
        // At the next start the bound sign-in says why not, and nothing else is tried.
        await #expect(throws: CustosError.accessDenied) {
            try await atStart().authenticateBoundUser(BoundUserAuthenticationRequest(redirectURI: "com.example.app:/callback"))
        }
    }
}
