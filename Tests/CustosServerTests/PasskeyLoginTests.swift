import CustosAPI
import CustosCore
import CustosCrypto
import CustosTestSupport
import Foundation
import Testing

/// Signing in to Custos itself with a passkey, no user id given, as a user and as an attacker:
/// a replayed challenge, another key, an unverified user, a revoked device, a wrong password.
@Suite struct PasskeyLoginTests {
    typealias RawDevice = BoundSignInAttackTests.RawDevice

    /// A fresh challenge, in the shape `RawDevice.assertion` signs.
    static func challenge(_ device: RawDevice) async throws -> DeviceSignInChallengeResponse {
        let answer: PasskeyLoginChallengeResponse = try await device.api.post("/v1/login/passkey/challenge", [String: String]())
        #expect(answer.rpID == "custos.test" && answer.userVerification == "required")
        return DeviceSignInChallengeResponse(authorizationID: "", challenge: answer.challenge, rpID: answer.rpID,
                                             origin: LiveServer.verdictSigning.issuer, clientName: "", expiresAt: answer.expiresAt)
    }

    static func login(_ device: RawDevice, _ body: WebAuthnAssertionBody, password: String? = IdentityFlowTests.password) -> PasskeyLoginRequest {
        PasskeyLoginRequest(credentialID: body.credentialID, authenticatorData: body.authenticatorData, clientDataJSON: body.clientDataJSON,
                            signature: body.signature, password: password)
    }

    @Test(arguments: StoreKind.available)
    func aDeviceAnsweringInWebAuthnsFormSignsInWithoutAUserID(kind: StoreKind) async throws {
        let live = try LiveServer.make(kind)
        defer { live.stop() }
        let device = try await RawDevice.make(live, clientID: "unused")
        let challenge = try await Self.challenge(device)
        let body = try device.assertion(challenge)
        let result: AuthenticationResult = try await device.api.post("/v1/login/passkey", Self.login(device, body))
        #expect(result.statusCode == 100 && result.userID == device.userID && result.deviceID == device.deviceID)
        let token = try #require(result.session?.token)
        let sessions: SessionList = try await device.api.get("/v1/sessions", bearer: token)
        #expect(sessions.sessions.contains { $0.deviceID == device.deviceID })

        // The same answer again: the challenge is spent.
        let (replayed, replayError) = try await device.api.postRaw("/v1/login/passkey", Self.login(device, body))
        #expect(replayed == 401 && replayError.error.code == "invalid_nonce")
    }

    @Test func forgedUnverifiedAndRevokedProofsAreRefusedAndCountAgainstTheDeviceNotTheUser() async throws {
        let live = try LiveServer.sqlite()
        defer { live.stop() }
        let device = try await RawDevice.make(live, clientID: "unused")
        let stranger = try P256.PrivateKey.generate()
        // Another key, no user verification, another origin: 401, no session, no user id told.
        for forged in [try device.assertion(try await Self.challenge(device), signer: stranger),
                       try device.assertion(try await Self.challenge(device), flags: 0x01),
                       try device.assertion(try await Self.challenge(device), origin: "https://evil.example")] {
            let result: AuthenticationResult = try await device.api.post("/v1/login/passkey", Self.login(device, forged))
            #expect(result.statusCode == 401 && result.session == nil && result.userID.isEmpty)
        }
        // The user's own attempts are untouched: a proven device with a wrong password is the first to count.
        let wrong: AuthenticationResult = try await device.api.post(
            "/v1/login/passkey", Self.login(device, try device.assertion(try await Self.challenge(device)), password: "not the password"))
        #expect(wrong.statusCode == 401 && wrong.userID == device.userID && wrong.attemptsLeft == 4)
        // A revoked device proves nothing.
        try await live.admin().revokeDevice(userID: device.userID, deviceID: device.deviceID)
        let revoked: AuthenticationResult = try await device.api.post("/v1/login/passkey", Self.login(device, try device.assertion(try await Self.challenge(device))))
        #expect(revoked.statusCode == 401 && revoked.session == nil)
        // A challenge nobody issued.
        let made = DeviceSignInChallengeResponse(authorizationID: "", challenge: Data(repeating: 7, count: 32).base64URLEncodedString, rpID: "custos.test",
                                                 origin: LiveServer.verdictSigning.issuer, clientName: "", expiresAt: Date())
        let (status, error) = try await device.api.postRaw("/v1/login/passkey", Self.login(device, try device.assertion(made)))
        #expect(status == 401 && error.error.code == "invalid_nonce")
    }
}
