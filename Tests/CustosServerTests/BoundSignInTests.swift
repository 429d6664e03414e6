import CustosAPI
import CustosConfiguration
import CustosCore
import CustosCrypto
import CustosSDK
import CustosServer
import CustosTestSupport
import Foundation
import Testing

/// A bound device signing in to an OpenID client (`authenticateBoundUser`) and exchanging the
/// code (`exchangeToken`), through the SDK against a live server.
struct SignInFixture {
    let live: LiveServer
    let userID: String
    let deviceID: String
    let keys: URL
    let clientID: String
    static let redirect = "com.example.app:/callback"

    static func make(_ kind: StoreKind, encryptionJWK: ClientJWK? = nil,
                     configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> SignInFixture {
        let live = try LiveServer(store: LiveServer.store(kind), configure: configure)
        let userID = "user-\(UUID().uuidString.prefix(8))"
        let created = try await live.admin().createUser(userID)
        let keys = FileManager.default.temporaryDirectory.appendingPathComponent("custos-keys-\(UUID().uuidString)")
        let result = try await live.client(keys: keys).activate(userID: userID, activationCode: created.activation.activationCode,
                                                                password: IdentityFlowTests.password, deviceName: "phone")
        let client = try await live.admin(scope: .admin).createOIDCClient(CreateOIDCClientRequest(
            name: "Example app", clientType: "public", redirectURIs: [redirect], encryptionJWK: encryptionJWK))
        return SignInFixture(live: live, userID: userID, deviceID: try #require(result.deviceID), keys: keys, clientID: client.clientID)
    }

    /// The app on the bound device, whose local authentication answers with `approve`.
    func device(approve: @escaping @Sendable (LocalAuthenticationRequest) async -> Bool = { _ in true }) throws -> CustosClient {
        let client = try live.client(keys: keys) {
            $0.localAuthentication = approve
            $0.clientID = clientID
        }
        client.restore(SessionState(userID: userID, deviceID: deviceID))
        return client
    }

    /// A device the password alone binds (the server must allow password registration): its
    /// key, id and session.
    func passwordBoundDevice(name: String) async throws -> (key: P256.PrivateKey, deviceID: String, session: String) {
        let key = try P256.PrivateKey.generate()
        let jwk = PublicKeyJWK(x: Base64URL.encode(key.publicKey.x), y: Base64URL.encode(key.publicKey.y))
        let registered: AuthenticationResult = try await RawAPI(base: live.baseURL).post("/v1/devices/register", RegisterDeviceRequest(
            userID: userID, password: IdentityFlowTests.password, deviceName: name, devicePublicKey: jwk))
        return (key, try #require(registered.deviceID), try #require(registered.session?.token))
    }

    static func claims(_ jwt: String) throws -> [String: Any] {
        let payload = try #require(Data(base64URLEncoded: String(jwt.split(separator: ".")[1])))
        return try #require(try JSONSerialization.jsonObject(with: payload) as? [String: Any])
    }
}

@Suite struct BoundSignInTests {
    @Test(arguments: StoreKind.available)
    func theBoundDeviceSignsInAndTheCodeIsExchangedOnce(kind: StoreKind) async throws {
        let fixture = try await SignInFixture.make(kind)
        defer { fixture.live.stop() }
        let asked = Recorded<LocalAuthenticationRequest>()
        let device = try fixture.device { request in
            asked.append(request)
            return true
        }
        let response = try await device.authenticateBoundUser(BoundUserAuthenticationRequest(redirectURI: SignInFixture.redirect, showLoader: true))
        #expect(response.location.hasPrefix(SignInFixture.redirect + "?") && response.location.contains("code="))
        #expect(response.codeVerifier != nil && asked.all.count == 1 && asked.all.first?.showLoader == true)
        #expect(asked.all.first?.action == "sign_in" && asked.all.first?.reason == "Sign in to Example app")

        let tokens = try await device.exchangeToken(response)
        #expect(tokens.tokenType == "Bearer" && tokens.expiresIn == 300 && tokens.refreshToken != nil)
        let claims = try SignInFixture.claims(tokens.idToken)
        #expect(claims["sub"] as? String == fixture.userID && claims["aud"] as? String == fixture.clientID)
        #expect(claims["nonce"] as? String == response.nonce && claims["acr"] as? String == "urn:custos:acr:3")
        // Possession of a software key, as the assurance table says: not hwk, and the app's UV bit is not claimed.
        #expect(claims["amr"] as? [String] == ["swk"] && Assurance.of(.deviceSignature).amr == ["swk"])
        let userInfo: UserInfoResponse = try await RawAPI(base: fixture.live.baseURL).get("/oauth2/userinfo", bearer: tokens.accessToken)
        #expect(userInfo.sub == fixture.userID)

        // The code is single use: the second exchange fails, and revokes what the first gave.
        await expectError("invalid_grant") { try await device.exchangeToken(response) }
        let (status, _) = try await RawAPI(base: fixture.live.baseURL).getStatus("/oauth2/userinfo", bearer: tokens.accessToken)
        #expect(status == 401)
        // The sign-in is in the audit trail (never the code).
        let events = try fixture.live.store.auditEvents(afterSequence: 0, limit: 100, userID: fixture.userID, transactionID: nil)
        #expect(events.contains { $0.kind == AuditKind.oidcSignIn.rawValue && $0.details["client_id"] == fixture.clientID })
        // The SDK says its local authentication ran (the hook approved): recorded, not claimed.
        #expect(events.contains { $0.kind == AuditKind.oidcSignIn.rawValue && $0.details["device_says_user_verified"] == "true" })
        #expect(events.contains { $0.kind == AuditKind.oidcGrantRevoked.rawValue })
    }

    /// Without a local-authentication hook the SDK signs as possession only: it sets no UV bit,
    /// the audit records that, and the token claims the same swk as with one.
    @Test func withoutALocalAuthenticationHookTheSDKClaimsNoUserVerification() async throws {
        let fixture = try await SignInFixture.make(.sqlite)
        defer { fixture.live.stop() }
        let device = try fixture.live.client(keys: fixture.keys) { $0.clientID = fixture.clientID }
        device.restore(SessionState(userID: fixture.userID, deviceID: fixture.deviceID))
        let response = try await device.authenticateBoundUser(BoundUserAuthenticationRequest(redirectURI: SignInFixture.redirect))
        let tokens = try await device.exchangeToken(response)
        #expect(try SignInFixture.claims(tokens.idToken)["amr"] as? [String] == ["swk"])
        let events = try fixture.live.store.auditEvents(afterSequence: 0, limit: 100, userID: fixture.userID, transactionID: nil)
        #expect(events.contains { $0.kind == AuditKind.oidcSignIn.rawValue && $0.details["device_says_user_verified"] == "false" })
    }

    @Test func anUnboundDeviceIsAnUnknownUserAndNothingElseIsTried() async throws {
        let fixture = try await SignInFixture.make(.sqlite)
        defer { fixture.live.stop() }
        let asked = Recorded<LocalAuthenticationRequest>()
        let approve: @Sendable (LocalAuthenticationRequest) async -> Bool = { asked.append($0); return true }
        // No binding on this device at all.
        let fresh = try fixture.live.client { $0.localAuthentication = approve; $0.clientID = fixture.clientID }
        await expectError("unknown_user") { try await fresh.authenticateBoundUser(BoundUserAuthenticationRequest(redirectURI: SignInFixture.redirect)) }
        // A key, but a device id the server does not know.
        let stranger = try fixture.device(approve: approve)
        stranger.restore(SessionState(userID: fixture.userID, deviceID: "dv_" + String(repeating: "0", count: 32)))
        do {
            _ = try await stranger.authenticateBoundUser(BoundUserAuthenticationRequest(redirectURI: SignInFixture.redirect))
            Issue.record("an unknown device signed in")
        } catch let error as CustosError {
            #expect(error == .unknownUser && error.longErrorCode == 905)
        }
        #expect(asked.all.isEmpty, "the user is never asked for a sign-in that cannot happen")
    }

    /// Seed 004's headline case: the app starts, creates its client and calls
    /// `authenticateBoundUser` with nothing restored; the key store kept the binding.
    @Test func aClientStartedAfreshFindsTheBindingAndRevocationForgetsIt() async throws {
        let fixture = try await SignInFixture.make(.sqlite)
        defer { fixture.live.stop() }
        func launch() throws -> CustosClient {
            try fixture.live.client(keys: fixture.keys) {
                $0.localAuthentication = { _ in true }
                $0.clientID = fixture.clientID
            }
        }
        let started = try launch()
        #expect(started.session.userID == nil)
        let response = try await started.authenticateBoundUser(BoundUserAuthenticationRequest(redirectURI: SignInFixture.redirect))
        let tokens = try await started.exchangeToken(response)
        #expect(try SignInFixture.claims(tokens.idToken)["sub"] as? String == fixture.userID)

        // A damaged binding file does not stop a login, which writes it anew.
        let bindingFile = try #require(try FileManager.default.contentsOfDirectory(atPath: fixture.keys.path).first { $0.hasSuffix(".json") })
        try Data("{".utf8).write(to: fixture.keys.appendingPathComponent(bindingFile))
        _ = try await launch().login(userID: fixture.userID, deviceID: fixture.deviceID, password: IdentityFlowTests.password)
        #expect(try await !launch().authenticateBoundUser(BoundUserAuthenticationRequest(redirectURI: SignInFixture.redirect)).code.isEmpty)

        // The user unbinds this device from the app: the next launch is an unknown user, and the
        // server is not asked (no challenge is begun for a device the app knows is unbound).
        let signedIn = try launch()
        _ = try await signedIn.login(userID: fixture.userID, deviceID: fixture.deviceID, password: IdentityFlowTests.password)
        #expect(try await signedIn.revokeDevice(fixture.deviceID, password: IdentityFlowTests.password).statusCode.isSuccess)
        let before = try fixture.live.store.auditEvents(afterSequence: 0, limit: 1000, userID: fixture.userID, transactionID: nil).count
        do {
            _ = try await launch().authenticateBoundUser(BoundUserAuthenticationRequest(redirectURI: SignInFixture.redirect))
            Issue.record("a revoked device signed in")
        } catch let error as CustosError {
            #expect(error == .unknownUser)
        }
        #expect(try fixture.live.store.auditEvents(afterSequence: 0, limit: 1000, userID: fixture.userID, transactionID: nil).count == before)
    }

    @Test func theLocalAuthenticationDecidesAndItsTimeoutIsKept() async throws {
        let fixture = try await SignInFixture.make(.sqlite)
        defer { fixture.live.stop() }
        let silent = try fixture.device { _ in
            try? await Task.sleep(for: .seconds(30))
            return true
        }
        await expectError("timeout") {
            try await silent.authenticateBoundUser(BoundUserAuthenticationRequest(redirectURI: SignInFixture.redirect, timeout: 0.3))
        }
        let declining = try fixture.device { _ in false }
        do {
            _ = try await declining.authenticateBoundUser(BoundUserAuthenticationRequest(redirectURI: SignInFixture.redirect))
            Issue.record("a declined sign-in went through")
        } catch let error as CustosError {
            #expect(error == .localAuthenticationCancelled && error.longErrorCode == 131)
        }
        // Neither left anything behind that blocks the next sign-in.
        let response = try await fixture.device().authenticateBoundUser(BoundUserAuthenticationRequest(redirectURI: SignInFixture.redirect))
        #expect(!response.code.isEmpty)
    }

    @Test(arguments: StoreKind.available)
    func aRevokedDeviceOrADisabledUserIsDenied(kind: StoreKind) async throws {
        let fixture = try await SignInFixture.make(kind)
        defer { fixture.live.stop() }
        let rp = try fixture.live.admin()
        _ = try await rp.disableUser(fixture.userID)
        await expectError("access_denied") { try await fixture.device().authenticateBoundUser(BoundUserAuthenticationRequest(redirectURI: SignInFixture.redirect)) }
        _ = try await rp.enableUser(fixture.userID)
        _ = try await fixture.device().authenticateBoundUser(BoundUserAuthenticationRequest(redirectURI: SignInFixture.redirect))
        try await rp.revokeDevice(userID: fixture.userID, deviceID: fixture.deviceID)
        await expectError("access_denied") { try await fixture.device().authenticateBoundUser(BoundUserAuthenticationRequest(redirectURI: SignInFixture.redirect)) }
    }

    @Test func anEncryptedIDTokenOpensOnlyWithTheClientsKey() async throws {
        let clientKey = try P256.PrivateKey.generate()
        let jwk = ClientJWK(x: Base64URL.encode(clientKey.publicKey.x), y: Base64URL.encode(clientKey.publicKey.y), kid: "app-server-1")
        let fixture = try await SignInFixture.make(.sqlite, encryptionJWK: jwk)
        defer { fixture.live.stop() }
        let device = try fixture.device()
        let response = try await device.authenticateBoundUser(BoundUserAuthenticationRequest(redirectURI: SignInFixture.redirect, encrypted: true))
        let tokens = try await device.exchangeToken(response)
        #expect(tokens.idToken.split(separator: ".", omittingEmptySubsequences: false).count == 5)
        let opened = try JWE.decrypt(tokens.idToken, with: clientKey)
        #expect(opened.kid == "app-server-1" && opened.contentType == "JWT")
        let inner = String(decoding: opened.plaintext, as: UTF8.self)
        let claims = try IDTokenValidator(issuer: response.issuer, clientID: fixture.clientID, nonce: response.nonce,
                                          keySet: try await device.publicKeySet()).validate(inner, now: Date())
        #expect(claims["sub"] as? String == fixture.userID)
        #expect(throws: CryptoError.self) { try JWE.decrypt(tokens.idToken, with: try P256.PrivateKey.generate()) }
    }
}

/// `authenticate` on a device that is not bound yet (the password registers it), and
/// registration links.
@Suite struct DeviceRegistrationTests {
    @Test(arguments: StoreKind.available)
    func authenticateRegistersAnUnboundDeviceWithThePasswordThenSignsIn(kind: StoreKind) async throws {
        let fixture = try await SignInFixture.make(kind) { $0.identity.passwordRegistration = true }
        defer { fixture.live.stop() }
        let tabletKeys = FileManager.default.temporaryDirectory.appendingPathComponent("custos-keys-\(UUID().uuidString)")
        func launchTablet() throws -> CustosClient {
            try fixture.live.client(keys: tabletKeys) { $0.clientID = fixture.clientID; $0.localAuthentication = { _ in true } }
        }
        let tablet = try launchTablet()
        let request = BoundUserAuthenticationRequest(redirectURI: SignInFixture.redirect)
        // A wrong password: refused as a login is, the attempt used, and nothing bound.
        do {
            _ = try await tablet.authenticate(request) { SignInCredentials(userID: fixture.userID, password: "not the password", deviceName: "tablet") }
            Issue.record("a wrong password bound a device")
        } catch let error as CustosError {
            #expect(error.code == "credentials_rejected" && error.longErrorCode == 401)
        }
        #expect(tablet.session.deviceID == nil)
        #expect(try await fixture.live.admin().devices(fixture.userID).count == 1)

        let response = try await tablet.authenticate(request) {
            SignInCredentials(userID: fixture.userID, password: IdentityFlowTests.password, deviceName: "tablet")
        }
        let tokens = try await tablet.exchangeToken(response)
        let claims = try SignInFixture.claims(tokens.idToken)
        // Bound by the password alone: its sign-ins prove what the password did, no more.
        #expect(claims["sub"] as? String == fixture.userID && claims["acr"] as? String == Assurance.of(.password).acr)
        #expect(claims["amr"] as? [String] == ["pwd"])
        #expect(try await fixture.live.admin().devices(fixture.userID).map(\.name).sorted() == ["phone", "tablet"])
        // Now bound: the bound sign-in needs nothing else, and the fallback is not asked again.
        let again = try await tablet.authenticate(request) {
            Issue.record("the fallback ran on a bound device")
            return nil
        }
        #expect(!again.code.isEmpty)
        // The app's next launch: the registration kept the binding, so no fallback either.
        let relaunched = try await launchTablet().authenticate(request) {
            Issue.record("the fallback ran after a restart of the app")
            return nil
        }
        #expect(!relaunched.code.isEmpty)
        let events = try fixture.live.store.auditEvents(afterSequence: 0, limit: 100, userID: fixture.userID, transactionID: nil)
        #expect(events.contains { $0.kind == AuditKind.deviceRegistered.rawValue && $0.details["proof"] == "password" })
    }

    /// No device proves who sends a password to the registration: wrong ones are throttled per
    /// user and client address, and never lock the user out of the devices they already have.
    @Test func wrongRegistrationPasswordsAreThrottledAndLockNoOne() async throws {
        let fixture = try await SignInFixture.make(.sqlite) { $0.identity.passwordRegistration = true }
        defer { fixture.live.stop() }
        let stranger = try fixture.live.client()
        var answers: [String] = []
        for _ in 0..<7 {
            do {
                let result = try await stranger.registerDevice(userID: fixture.userID, password: "a guessed password", deviceName: "x")
                answers.append(String(result.statusCode.rawValue))
            } catch let error as CustosError {
                answers.append(error.code)
            }
        }
        #expect(answers == ["401", "401", "401", "401", "401", "too_many_attempts", "too_many_attempts"], "\(answers)")
        // The user was not locked: the bound device still signs in.
        let user = try #require(try fixture.live.store.user(id: fixture.userID))
        #expect(user.lockoutCount == 0 && !user.isLocked(at: Date()))
        _ = try await fixture.device().authenticateBoundUser(BoundUserAuthenticationRequest(redirectURI: SignInFixture.redirect))
    }

    @Test func aRegistrationCodeBindsOneDeviceOnceAndExpires() async throws {
        let fixture = try await SignInFixture.make(.sqlite)
        defer { fixture.live.stop() }
        let rp = try fixture.live.admin()
        let link = try await rp.issueRegistrationCode(fixture.userID)
        #expect(link.registrationCode.hasPrefix("rc_"))
        let laptop = try fixture.live.client()
        let bound = try await laptop.registerDevice(userID: fixture.userID, registrationCode: link.registrationCode, deviceName: "laptop")
        #expect(bound.statusCode == 100 && bound.session?.token != nil)
        // Single use, bound to its user, and it expires.
        await expectError("invalid_registration_code") {
            try await fixture.live.client().registerDevice(userID: fixture.userID, registrationCode: link.registrationCode, deviceName: "again")
        }
        let other = try await IdentityFlowTests.activatedUser(fixture.live)
        let theirs = try await rp.issueRegistrationCode(other.userID)
        await expectError("invalid_registration_code") {
            try await fixture.live.client().registerDevice(userID: fixture.userID, registrationCode: theirs.registrationCode, deviceName: "x")
        }
        let late = try await rp.issueRegistrationCode(fixture.userID)
        fixture.live.clock.advance(by: 25 * 3600)
        await expectError("invalid_registration_code") {
            try await fixture.live.client().registerDevice(userID: fixture.userID, registrationCode: late.registrationCode, deviceName: "late")
        }
        // A user not yet activated has no registration codes (activation codes are theirs).
        _ = try await rp.createUser("not-yet")
        await expectError("user_not_active") { try await rp.issueRegistrationCode("not-yet") }
    }

    /// The password alone binds nothing unless the operator turns password registration on.
    @Test(arguments: StoreKind.available)
    func byDefaultThePasswordAloneBindsNoDevice(kind: StoreKind) async throws {
        let live = try LiveServer.make(kind)
        defer { live.stop() }
        let (_, userID, _) = try await IdentityFlowTests.activatedUser(live)
        await expectError("password_registration_off") {
            try await live.client().registerDevice(userID: userID, password: IdentityFlowTests.password, deviceName: "tablet")
        }
    }
}
