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

/// Every revocation ends everything derived from it, at once and on every node: the user's
/// sessions, and every OIDC grant made with the user or the device, with its refresh and
/// access tokens (refresh, userinfo and introspection read the live state).
@Suite struct RevocationTests {
    typealias RawDevice = BoundSignInAttackTests.RawDevice

    struct Tokens {
        let access: String
        let refresh: String
        let id: String
    }

    /// A bound-device sign-in of `device` at `node`, exchanged for tokens with a refresh token.
    static func signIn(_ device: RawDevice, at node: LiveServer) async throws -> Tokens {
        let challenge = try await device.begin(scope: "openid offline_access")
        let code: AuthorizationCodeResponse = try await device.api.post(
            "/v1/oidc/device-sign-in/\(challenge.authorizationID)/assertion", try device.assertion(challenge))
        let (status, body) = try await form(node, "/oauth2/token", [
            "grant_type": "authorization_code", "code": code.code, "redirect_uri": SignInFixture.redirect,
            "client_id": device.clientID, "code_verifier": RawDevice.verifier,
        ])
        #expect(status == 200, "\(body)")
        return Tokens(access: try #require(body["access_token"] as? String), refresh: try #require(body["refresh_token"] as? String),
                      id: try #require(body["id_token"] as? String))
    }

    static func form(_ node: LiveServer, _ path: String, _ fields: [String: String]) async throws -> (Int, [String: Any]) {
        var request = URLRequest(url: node.baseURL.appendingPathComponent(path), timeoutInterval: TestEnvironment.requestTimeout)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = FormBody(fields: fields).encoded
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:])
    }

    static func refresh(_ node: LiveServer, _ device: RawDevice, _ token: String) async throws -> (Int, [String: Any]) {
        try await form(node, "/oauth2/token", ["grant_type": "refresh_token", "refresh_token": token, "client_id": device.clientID])
    }

    /// GET /oauth2/userinfo, and POST (OpenID Connect Core §5.3) when both answer alike.
    static func userInfoStatus(_ node: LiveServer, _ accessToken: String) async throws -> Int {
        let viaGet = try await RawAPI(base: node.baseURL).getStatus("/oauth2/userinfo", bearer: accessToken).0
        var request = URLRequest(url: node.baseURL.appendingPathComponent("/oauth2/userinfo"), timeoutInterval: TestEnvironment.requestTimeout)
        request.httpMethod = "POST"
        request.setValue("Bearer \(accessToken)", forHTTPHeaderField: "Authorization")
        let (_, response) = try await URLSession.shared.data(for: request)
        let viaPost = (response as? HTTPURLResponse)?.statusCode ?? 0
        #expect(viaGet == viaPost, "userinfo answers GET \(viaGet) but POST \(viaPost)")
        return viaGet
    }

    static func sessionStatus(_ node: LiveServer, _ token: String) async throws -> Int {
        try await RawAPI(base: node.baseURL).getStatus("/v1/sessions", bearer: token).0
    }

    /// Five wrong passwords with the device's valid signature: the user is locked.
    static func lock(_ live: LiveServer, _ device: RawDevice) throws {
        for _ in 0..<5 {
            let nonce = try live.identity.loginChallenge(userID: device.userID, deviceID: device.deviceID)
            let signature = try device.key.sign(Array(nonce.nonce.utf8))
            _ = try live.identity.login(userID: device.userID, deviceID: device.deviceID, nonce: nonce.nonce,
                                        signature: Data(signature).base64URLEncodedString, password: "wrong password 1")
        }
        #expect(try live.store.user(id: device.userID)?.isLocked(at: Date()) == true)
    }

    enum Revocation: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case deviceRevoked, userDisabled, userLocked, passwordChanged, userReset
        var testDescription: String { rawValue }
    }

    /// What the revocation is, done the way an operator or the user does it; then whatever can
    /// be undone (enable, unlock) is, and nothing comes back with it.
    static func apply(_ revocation: Revocation, _ live: LiveServer, _ device: RawDevice, admin: CustosAdminClient) async throws {
        switch revocation {
        case .deviceRevoked:
            try await admin.revokeDevice(userID: device.userID, deviceID: device.deviceID)
        case .userDisabled:
            _ = try await admin.disableUser(device.userID)
            _ = try await admin.enableUser(device.userID)
        case .userLocked:
            try lock(live, device)
            _ = try await admin.unlockUser(device.userID)
        case .passwordChanged:
            // From another session of the user (the activation's): that one stays, the rest ends.
            let (status, _) = try await RawAPI(base: live.baseURL).postRaw("/v1/password/change", ChangePasswordRequest(
                userID: device.userID, oldPassword: IdentityFlowTests.password, newPassword: "another long passphrase 7"),
                bearer: device.sessionToken)
            #expect(status == 200)
        case .userReset:
            _ = try await admin.resetUser(device.userID)
        }
    }

    @Test(arguments: StoreKind.available, Revocation.allCases)
    func aRevocationEndsEveryTokenAndSession(kind: StoreKind, revocation: Revocation) async throws {
        let live = try LiveServer.make(kind)
        defer { live.stop() }
        let device = try await RawDevice.make(live)
        let admin = try live.admin()
        var tokens = try await Self.signIn(device, at: live)
        // A second session of the same device, which every revocation here ends.
        let nonce = try live.identity.loginChallenge(userID: device.userID, deviceID: device.deviceID)
        let second = try live.identity.login(userID: device.userID, deviceID: device.deviceID, nonce: nonce.nonce,
                                             signature: Data(try device.key.sign(Array(nonce.nonce.utf8))).base64URLEncodedString,
                                             password: IdentityFlowTests.password)
        let secondSession = try #require(second.sessionToken)

        // Before: the refresh token rotates, the access token reads userinfo, the session works.
        let (status, body) = try await Self.refresh(live, device, tokens.refresh)
        #expect(status == 200, "\(body)")
        tokens = Tokens(access: try #require(body["access_token"] as? String), refresh: try #require(body["refresh_token"] as? String),
                        id: body["id_token"] as? String ?? tokens.id)
        #expect(try await Self.userInfoStatus(live, tokens.access) == 200)
        #expect(try await Self.sessionStatus(live, secondSession) == 200)

        try await Self.apply(revocation, live, device, admin: admin)

        let (after, error) = try await Self.refresh(live, device, tokens.refresh)
        #expect(after == 400 && error["error"] as? String == "invalid_grant", "\(revocation): \(after) \(error)")
        #expect(try await Self.userInfoStatus(live, tokens.access) == 401, "\(revocation): the access token outlived it")
        #expect(try await Self.sessionStatus(live, secondSession) == 401, "\(revocation): a session outlived it")
        // Asked again (no byte-equal replay trick): still refused.
        #expect(try await Self.refresh(live, device, tokens.refresh).0 == 400)
    }

    /// Two nodes on one PostgreSQL: a device revoked at one ends the tokens at the other at once.
    @Test(.enabled(if: StoreKind.available.contains(.postgresql)))
    func aRevocationAtOneNodeEndsTheTokensAtTheOther() async throws {
        let (first, second) = try LiveServer.postgresNodes()
        defer { first.stop(); second.stop() }
        let device = try await RawDevice.make(first)
        let tokens = try await Self.signIn(device, at: first)
        #expect(try await Self.userInfoStatus(second, tokens.access) == 200)
        // The relying party that created the user, at the other node.
        let relyingParty = try first.admin(at: second)
        _ = try await relyingParty.disableUser(device.userID)
        #expect(try await Self.userInfoStatus(first, tokens.access) == 401)
        #expect(try await Self.refresh(first, device, tokens.refresh).0 == 400)
        #expect(try await Self.sessionStatus(first, device.sessionToken) == 401)
        _ = try await relyingParty.enableUser(device.userID)
        #expect(try await Self.userInfoStatus(first, tokens.access) == 401, "an enable revives no token")
    }

    /// A lock ends the sessions for good: an unlock revives none (a stolen one included).
    @Test func anUnlockRevivesNoSession() async throws {
        let live = try LiveServer.make(.sqlite)
        defer { live.stop() }
        let device = try await RawDevice.make(live)
        #expect(try await Self.sessionStatus(live, device.sessionToken) == 200)
        try Self.lock(live, device)
        _ = try await live.admin().unlockUser(device.userID)
        #expect(try await Self.sessionStatus(live, device.sessionToken) == 401)
    }
}
