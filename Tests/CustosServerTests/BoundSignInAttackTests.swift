import CustosAPI
import CustosCore
import CustosCrypto
import CustosSDK
import CustosTestSupport
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Bound-device sign-in as an attacker sees it: with the app's own traffic, another device's
/// key, a recorded assertion, and a script.
@Suite struct BoundSignInAttackTests {
    /// A device activated over the raw API with a key the test holds.
    struct RawDevice {
        let api: RawAPI
        let userID: String
        let deviceID: String
        let key: P256.PrivateKey
        let clientID: String
        /// The session the activation opened.
        let sessionToken: String

        static func make(_ live: LiveServer, clientID: String? = nil) async throws -> RawDevice {
            let userID = "raw-\(UUID().uuidString.prefix(8))"
            let created = try await live.admin().createUser(userID)
            let key = try P256.PrivateKey.generate()
            let api = RawAPI(base: live.baseURL)
            let result: AuthenticationResult = try await api.post("/v1/activate", ActivateRequest(
                userID: userID, activationCode: created.activation.activationCode, password: IdentityFlowTests.password, deviceName: "script",
                devicePublicKey: PublicKeyJWK(x: Base64URL.encode(key.publicKey.x), y: Base64URL.encode(key.publicKey.y))))
            var client = clientID ?? ""
            if clientID == nil {
                client = try await live.admin(scope: .admin).createOIDCClient(CreateOIDCClientRequest(
                    name: "App", clientType: "public", redirectURIs: [SignInFixture.redirect])).clientID
            }
            return RawDevice(api: api, userID: userID, deviceID: try #require(result.deviceID), key: key, clientID: client,
                             sessionToken: try #require(result.session?.token))
        }

        static let verifier = String(repeating: "v", count: 43)

        func begin(scope: String = "openid", redirectURI: String = SignInFixture.redirect) async throws -> DeviceSignInChallengeResponse {
            try await api.post("/v1/oidc/device-sign-in", beginRequest(scope: scope, redirectURI: redirectURI))
        }

        func beginRequest(scope: String = "openid", redirectURI: String = SignInFixture.redirect) -> DeviceSignInRequest {
            DeviceSignInRequest(
                deviceID: deviceID, clientID: clientID, redirectURI: redirectURI, scope: scope, state: "s", nonce: "n",
                codeChallenge: Data(SHA256.hash(Array(Self.verifier.utf8))).base64URLEncodedString, codeChallengeMethod: "S256")
        }

        func assertion(_ challenge: DeviceSignInChallengeResponse, signer: P256.PrivateKey? = nil, flags: UInt8 = 0x05,
                       origin: String? = nil, credentialID: String? = nil, challengeText: String? = nil) throws -> WebAuthnAssertionBody {
            let data = AuthenticatorData(rpIDHash: Data(SHA256.hash(Array(challenge.rpID.utf8))), flags: flags, signCount: 0).encoded
            let clientData = try JSONSerialization.data(withJSONObject: [
                "type": "webauthn.get", "challenge": challengeText ?? challenge.challenge, "origin": origin ?? challenge.origin,
            ], options: [.sortedKeys, .withoutEscapingSlashes])
            let signature = try (signer ?? key).signDER(Array(data + SHA256.hash(clientData)))
            return WebAuthnAssertionBody(credentialID: credentialID ?? deviceID, authenticatorData: data.base64URLEncodedString,
                                         clientDataJSON: clientData.base64URLEncodedString, signature: Data(signature).base64URLEncodedString)
        }

        func answer(_ challenge: DeviceSignInChallengeResponse, _ body: WebAuthnAssertionBody) async throws -> (Int, ErrorEnvelope) {
            try await api.postRaw("/v1/oidc/device-sign-in/\(challenge.authorizationID)/assertion", body)
        }
    }

    @Test(arguments: StoreKind.available)
    func forgedReplayedAndMisdirectedAssertionsFail(kind: StoreKind) async throws {
        let live = try LiveServer.make(kind)
        defer { live.stop() }
        let device = try await RawDevice.make(live)
        let other = try await RawDevice.make(live, clientID: device.clientID)

        // Another device's key (another user's phone) cannot answer this device's challenge,
        // under either device's credential id; and the failed try spends the challenge.
        var challenge = try await device.begin()
        var (status, error) = try await device.answer(challenge, try device.assertion(challenge, signer: other.key))
        #expect(status == 401 && error.error.code == "assertion_rejected")
        (status, error) = try await device.answer(challenge, try device.assertion(challenge))
        #expect(status == 410 && error.error.code == "authorization_expired", "one attempt per challenge")
        challenge = try await device.begin()
        (status, error) = try await device.answer(challenge, try other.assertion(challenge, credentialID: other.deviceID))
        #expect(status == 401 && error.error.message.contains("not the device"))

        // A recorded assertion does not answer a new challenge; a good one is answered once.
        let recorded = try device.assertion(try await device.begin())
        challenge = try await device.begin()
        (status, error) = try await device.answer(challenge, recorded)
        #expect(status == 401 && error.error.message.contains("challenge"))
        challenge = try await device.begin()
        let good = try device.assertion(challenge)
        var (okStatus, okData) = try await device.api.postData("/v1/oidc/device-sign-in/\(challenge.authorizationID)/assertion", good)
        #expect(okStatus == 200, "\(String(decoding: okData, as: UTF8.self))")
        (status, _) = try await device.answer(challenge, good)
        #expect(status == 410)

        // Another origin (a phishing page relaying the challenge) is refused.
        challenge = try await device.begin()
        (status, error) = try await device.answer(challenge, try device.assertion(challenge, origin: "https://custos.test.evil.example"))
        #expect(status == 401 && error.error.message.contains("origin"))
        // A device key's UV bit is the app's own word: without it the key still proves possession,
        // and with it the token claims no more (see assuranceClaimsOnlyWhatWasVerified).
        challenge = try await device.begin()
        (okStatus, _) = try await device.api.postData("/v1/oidc/device-sign-in/\(challenge.authorizationID)/assertion",
                                                      try device.assertion(challenge, flags: 0x01))
        #expect(okStatus == 200)

        // None of it used the user's attempts: the password still logs in with all of them.
        let user = try #require(try live.store.user(id: device.userID))
        #expect(user.lockoutCount == 0 && !user.isLocked(at: Date()))
    }

    /// A software key that sets its own user-verification bit gets possession only (`swk`), and a
    /// request for more than a device's signature proves ends in unmet_authentication_requirements
    /// instead of a weaker token.
    @Test(arguments: StoreKind.available)
    func assuranceClaimsOnlyWhatWasVerified(kind: StoreKind) async throws {
        let live = try LiveServer.make(kind)
        defer { live.stop() }
        let device = try await RawDevice.make(live)
        let tokens = try await RevocationTests.signIn(device, at: live)
        let access = try SignInFixture.claims(tokens.access)
        #expect(access["acr"] as? String == Assurance.of(.deviceSignature).acr)

        func ask(_ acrValues: String) async throws -> (Int, Data) {
            try await device.api.postData("/v1/oidc/device-sign-in", DeviceSignInRequest(
                deviceID: device.deviceID, clientID: device.clientID, redirectURI: SignInFixture.redirect, scope: "openid", state: "s",
                nonce: "n", codeChallenge: Data(SHA256.hash(Array(RawDevice.verifier.utf8))).base64URLEncodedString,
                codeChallengeMethod: "S256", acrValues: acrValues))
        }
        let (refused, body) = try await ask("urn:custos:acr:4")
        #expect(refused == 400 && String(decoding: body, as: UTF8.self).contains("unmet_authentication_requirements"))
        #expect(try await ask("urn:custos:acr:9 made-up").0 == 400)
        #expect(try await ask("urn:custos:acr:4 urn:custos:acr:3").0 == 200)
        #expect(try await ask("urn:custos:acr:1").0 == 200, "a device's signature meets a password's AAL1 request")
        let events = try live.store.auditEvents(afterSequence: 0, limit: 100, userID: device.userID, transactionID: nil)
        #expect(events.contains { $0.kind == "oidc.sign_in" && $0.details["device_says_user_verified"] == "true" })
    }

    /// A presentation refused before the exchange spends nothing: a code or refresh token shown
    /// by another client, with a wrong verifier or asking a wider scope stays its rightful
    /// client's (no free revocation for whoever saw it in transit).
    @Test(arguments: StoreKind.available)
    func aRefusedPresentationSpendsNoToken(kind: StoreKind) async throws {
        let live = try LiveServer.make(kind)
        defer { live.stop() }
        let device = try await RawDevice.make(live)
        let stranger = try await live.admin(scope: .admin).createOIDCClient(CreateOIDCClientRequest(
            name: "Other app", clientType: "public", redirectURIs: [SignInFixture.redirect])).clientID
        let challenge = try await device.begin(scope: "openid offline_access")
        let code: AuthorizationCodeResponse = try await device.api.post(
            "/v1/oidc/device-sign-in/\(challenge.authorizationID)/assertion", try device.assertion(challenge))
        var fields = ["grant_type": "authorization_code", "code": code.code, "redirect_uri": SignInFixture.redirect,
                      "client_id": device.clientID, "code_verifier": RawDevice.verifier]
        for (key, wrong) in [("client_id", stranger), ("code_verifier", String(repeating: "w", count: 43)),
                             ("redirect_uri", "com.example.app:/other")] {
            var presented = fields
            presented[key] = wrong
            let (status, body) = try await RevocationTests.form(live, "/oauth2/token", presented)
            #expect(status == 400 && body["error"] as? String == "invalid_grant", "\(key): \(status) \(body)")
        }
        let (status, body) = try await RevocationTests.form(live, "/oauth2/token", fields)
        #expect(status == 200, "the rightful exchange still works: \(body)")
        let refresh = try #require(body["refresh_token"] as? String)

        fields = ["grant_type": "refresh_token", "refresh_token": refresh, "client_id": stranger]
        #expect(try await RevocationTests.form(live, "/oauth2/token", fields).0 == 400)
        fields["client_id"] = device.clientID
        fields["scope"] = "openid offline_access profile"
        let (wider, widerBody) = try await RevocationTests.form(live, "/oauth2/token", fields)
        #expect(wider == 400 && widerBody["error"] as? String == "invalid_scope")
        fields["scope"] = nil
        let (rotated, rotatedBody) = try await RevocationTests.form(live, "/oauth2/token", fields)
        #expect(rotated == 200, "\(rotatedBody)")
        // The rightful client's reuse is still detected: the spent token revokes the grant.
        #expect(try await RevocationTests.form(live, "/oauth2/token", fields).0 == 400)
        let next = try #require(rotatedBody["refresh_token"] as? String)
        #expect(try await RevocationTests.refresh(live, device, next).0 == 400, "the reuse revoked the grant")
    }

    @Test func failedProofsAreThrottledPerDeviceNotPerUser() async throws {
        let live = try LiveServer.make(.sqlite)
        defer { live.stop() }
        let device = try await RawDevice.make(live)
        let stranger = try P256.PrivateKey.generate()
        var statuses: [Int] = []
        for _ in 0..<7 {
            let challenge = try await device.begin()
            statuses.append(try await device.answer(challenge, try device.assertion(challenge, signer: stranger)).0)
        }
        #expect(statuses.prefix(5).allSatisfy { $0 == 401 } && statuses.last == 429, "\(statuses)")
        // The user's own attempt counter was never touched.
        #expect(try live.store.user(id: device.userID)?.lockoutCount == 0)
    }

    /// Two nodes on one PostgreSQL: an authorization code redeemed at both at once gives
    /// exactly one token answer.
    @Test(.enabled(if: StoreKind.available.contains(.postgresql)))
    func aCodeRedeemedAtTwoNodesAtOnceGivesOneTokenAnswer() async throws {
        let (first, second) = try LiveServer.postgresNodes()
        defer { first.stop(); second.stop() }
        let device = try await RawDevice.make(first)
        for _ in 0..<10 {
            let challenge = try await device.begin()
            let code: AuthorizationCodeResponse = try await device.api.post("/v1/oidc/device-sign-in/\(challenge.authorizationID)/assertion",
                                                                            try device.assertion(challenge))
            let fields = ["grant_type": "authorization_code", "code": code.code, "redirect_uri": SignInFixture.redirect,
                          "client_id": device.clientID, "code_verifier": RawDevice.verifier]
            let statuses = await withTaskGroup(of: Int.self) { group in
                for node in [first, second] {
                    group.addTask {
                        var request = URLRequest(url: node.baseURL.appendingPathComponent("/oauth2/token"), timeoutInterval: TestEnvironment.requestTimeout)
                        request.httpMethod = "POST"
                        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
                        request.httpBody = FormBody(fields: fields).encoded
                        let answer = try? await URLSession.shared.data(for: request)
                        return (answer?.1 as? HTTPURLResponse)?.statusCode ?? 0
                    }
                }
                return await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.sorted() == [200, 400], "\(statuses)")
        }
    }
}
