import CustosAPI
import CustosCore
import CustosCrypto
import CustosTestSupport
import Foundation
import Testing

/// Level 1 answered by a passkey (the browser's own verification) instead of the password: the
/// assertion signs the SHA-256 of the notification's content for the chosen action, with the
/// user verified. What it proved is recorded (level 3, `swk`), never the password; every proof
/// that does not hold is a failed attempt, as a wrong password is.
@Suite struct PasskeyStepUpTests {
    struct Passkey {
        let key: P256.PrivateKey
        let deviceID: String

        /// An assertion over `offer`'s challenge (or `challenge`), as an authenticator makes it.
        func assertion(_ offer: PasskeyStepUp, challenge: String? = nil, flags: UInt8 = 0x05, signCount: UInt32 = 0,
                       signer: P256.PrivateKey? = nil, credentialID: String? = nil) throws -> WebAuthnAssertionBody {
            let data = AuthenticatorData(rpIDHash: Data(SHA256.hash(Array(offer.rpID.utf8))), flags: flags, signCount: signCount).encoded
            let clientData = try JSONSerialization.data(withJSONObject: [
                "type": "webauthn.get", "challenge": challenge ?? offer.challenge, "origin": LiveServer.verdictSigning.issuer,
            ], options: [.sortedKeys, .withoutEscapingSlashes])
            let signature = try (signer ?? key).signDER(Array(data + SHA256.hash(clientData)))
            return WebAuthnAssertionBody(credentialID: credentialID ?? deviceID, authenticatorData: data.base64URLEncodedString,
                                         clientDataJSON: clientData.base64URLEncodedString, signature: Data(signature).base64URLEncodedString)
        }
    }

    /// Registers a passkey for the fixture's user, as the web app does (the password again).
    static func register(_ fixture: StepUpFixture) async throws -> Passkey {
        let options: PasskeyRegistrationOptions = try await fixture.api.post(
            "/v1/passkeys/registration", PasskeyRegistrationStart(password: IdentityFlowTests.password), bearer: fixture.bearer)
        let key = try P256.PrivateKey.generate()
        let made = try PasskeyTests.registration(key: key, challenge: options.challenge, rpID: options.rpID, origin: options.origin, format: "none")
        let device: DeviceInfo = try await fixture.api.post("/v1/passkeys/registration/\(options.registrationID)", PasskeyRegistrationRequest(
            attestationObject: made.attestationObject.base64URLEncodedString, clientDataJSON: made.clientDataJSON.base64URLEncodedString,
            name: "Laptop"), bearer: fixture.bearer)
        return Passkey(key: key, deviceID: device.deviceID)
    }

    static func post(_ fixture: StepUpFixture, _ uuid: String, _ body: UpdateNotificationRequest) async throws -> UpdateNotificationResult {
        try await fixture.api.post("/v1/notifications/\(uuid)/actions", body, bearer: fixture.bearer)
    }

    /// The offer of a fresh level-1 notification's `approve`.
    static func offered(_ fixture: StepUpFixture) async throws -> (CreatedNotification, PasskeyStepUp) {
        let created = try await fixture.send(level: 1)
        let asked = try await post(fixture, created.notificationUUID, UpdateNotificationRequest(action: "approve"))
        #expect(asked.statusCode == 102 && asked.stepUp?.challengeMode == 3)
        return (created, try #require(asked.stepUp?.passkey))
    }

    @Test(arguments: StoreKind.available)
    func aPasskeyWithTheUserVerifiedAnswersLevelOneAndIsRecordedAsWhatItProved(kind: StoreKind) async throws {
        let fixture = try await StepUpFixture.make(kind)
        defer { fixture.live.stop() }
        // No passkey, no offer: the password (or the device's LDA) answers.
        let before = try await fixture.send(level: 1)
        let plain = try await Self.post(fixture, before.notificationUUID, UpdateNotificationRequest(action: "approve"))
        #expect(plain.statusCode == 102 && plain.stepUp?.passkey == nil)

        let passkey = try await Self.register(fixture)
        let (created, offer) = try await Self.offered(fixture)
        let shown = try await fixture.shown(created.notificationUUID)
        let content = StepUpContent.bytes(notificationUUID: shown.notificationUUID, action: "approve", subject: shown.subject,
                                          message: shown.message, details: shown.authorizationDetails, number: nil)
        #expect(offer.challenge == Data(SHA256.hash(Array(content))).base64URLEncodedString, "the challenge is the content's SHA-256")
        #expect(offer.credentialIDs == [passkey.deviceID] && offer.userVerification == "required" && offer.rpID == "custos.test")

        let answered = try await Self.post(fixture, created.notificationUUID,
                                           UpdateNotificationRequest(action: "approve", assertion: try passkey.assertion(offer)))
        #expect(answered.statusCode == 100 && answered.notification?.achievedLevel == 3)
        let result = try await fixture.rp.notificationResult(created.notificationUUID)
        #expect(result.authLevel == 3 && result.amr == ["swk"], "what was proved, never pwd")

        // The same assertion again: the notification is closed.
        let (status, error) = try await fixture.api.postRaw("/v1/notifications/\(created.notificationUUID)/actions",
                                                            UpdateNotificationRequest(action: "approve", assertion: try passkey.assertion(offer)),
                                                            bearer: fixture.bearer)
        #expect(status == 409 && error.error.code == "notification_closed")
    }

    /// No user verification, another notification's challenge, another key, a credential that
    /// is not a passkey of this user, a counter that went back, a revoked passkey: each is a
    /// failed attempt with the challenge again, and none answers.
    @Test func assertionsThatDoNotHoldAreFailedAttempts() async throws {
        let fixture = try await StepUpFixture.make(.sqlite)
        defer { fixture.live.stop() }
        let passkey = try await Self.register(fixture)
        let (created, offer) = try await Self.offered(fixture)
        let (_, otherOffer) = try await Self.offered(fixture)
        let uuid = created.notificationUUID
        let forged = [
            try passkey.assertion(offer, flags: 0x01),
            try passkey.assertion(offer, challenge: otherOffer.challenge),
            try passkey.assertion(offer, signer: try P256.PrivateKey.generate()),
            try passkey.assertion(offer, credentialID: fixture.deviceID),
        ]
        for (index, assertion) in forged.enumerated() {
            let answer = try await Self.post(fixture, uuid, UpdateNotificationRequest(action: "approve", assertion: assertion))
            #expect(answer.statusCode == 401 && answer.attemptsLeft == 4 - index && answer.stepUp?.passkey == offer, "forgery \(index)")
        }
        // The right proof still answers: the attempts were counted, not the notification closed.
        let answered = try await Self.post(fixture, uuid, UpdateNotificationRequest(action: "approve", assertion: try passkey.assertion(offer)))
        #expect(answered.statusCode == 100)
    }

    /// A counter that did not move on (a cloned authenticator) and a revoked passkey answer nothing.
    @Test func aCounterThatWentBackOrARevokedPasskeyAnswersNothing() async throws {
        let fixture = try await StepUpFixture.make(.sqlite)
        defer { fixture.live.stop() }
        let passkey = try await Self.register(fixture)
        let (first, firstOffer) = try await Self.offered(fixture)
        let answered = try await Self.post(fixture, first.notificationUUID,
                                           UpdateNotificationRequest(action: "approve", assertion: try passkey.assertion(firstOffer, signCount: 7)))
        #expect(answered.statusCode == 100)
        let (next, offer) = try await Self.offered(fixture)
        let cloned = try await Self.post(fixture, next.notificationUUID,
                                         UpdateNotificationRequest(action: "approve", assertion: try passkey.assertion(offer, signCount: 7)))
        #expect(cloned.statusCode == 401)

        try await fixture.live.admin().revokeDevice(userID: fixture.userID, deviceID: passkey.deviceID)
        let after = try await Self.post(fixture, next.notificationUUID, UpdateNotificationRequest(action: "approve"))
        #expect(after.statusCode == 102 && after.stepUp?.passkey == nil, "a revoked passkey is not offered")
        let revoked = try await Self.post(fixture, next.notificationUUID,
                                          UpdateNotificationRequest(action: "approve", assertion: try passkey.assertion(offer, signCount: 8)))
        #expect(revoked.statusCode == 401, "nor accepted")
    }

    @Test func thePasswordAndAnAssertionTogetherAreRefusedUnjudged() async throws {
        let fixture = try await StepUpFixture.make(.sqlite)
        defer { fixture.live.stop() }
        let passkey = try await Self.register(fixture)
        let (created, offer) = try await Self.offered(fixture)
        let (status, error) = try await fixture.api.postRaw("/v1/notifications/\(created.notificationUUID)/actions", UpdateNotificationRequest(
            action: "approve", password: IdentityFlowTests.password, assertion: try passkey.assertion(offer)), bearer: fixture.bearer)
        #expect(status == 422 && error.error.code == "invalid_field", "\(error)")
        let asked = try await Self.post(fixture, created.notificationUUID, UpdateNotificationRequest(action: "approve"))
        #expect(asked.attemptsLeft == 5, "nothing was judged")
    }
}
