import CustosAPI
import CustosCore
import CustosTestSupport
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// RP-Initiated Logout 1.0 (`/oauth2/logout`): the grant an ID token names ends with every token
/// derived from it, and the browser goes on only to an address the client registered.
@Suite struct LogoutTests {
    typealias RawDevice = BoundSignInAttackTests.RawDevice
    static let afterLogout = "https://app.example/signed-out"

    /// A client with a post-logout address, a device of a user, and that user's tokens.
    func signedIn(_ live: LiveServer) async throws -> (RawDevice, RevocationTests.Tokens) {
        let client = try await live.admin(scope: .admin).createOIDCClient(CreateOIDCClientRequest(
            name: "App", clientType: "public", redirectURIs: [SignInFixture.redirect], postLogoutRedirectURIs: [Self.afterLogout]))
        #expect(client.postLogoutRedirectURIs == [Self.afterLogout])
        let device = try await RawDevice.make(live, clientID: client.clientID)
        return (device, try await RevocationTests.signIn(device, at: live))
    }

    func logout(_ live: LiveServer, _ parameters: [String: String], post: Bool = false) async throws -> (status: Int, location: String?, body: String) {
        var components = try #require(URLComponents(url: live.baseURL.appendingPathComponent("/oauth2/logout"), resolvingAgainstBaseURL: false))
        var request: URLRequest
        if post {
            request = URLRequest(url: try #require(components.url))
            request.httpMethod = "POST"
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.httpBody = FormBody(fields: parameters).encoded
        } else {
            components.queryItems = parameters.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
            request = URLRequest(url: try #require(components.url))
        }
        let (body, response) = try await live.exchange.exchange(request)
        return (response.statusCode, response.value(forHTTPHeaderField: "Location"), String(decoding: body, as: UTF8.self))
    }

    @Test(arguments: StoreKind.available)
    func theHintsGrantEndsAndTheBrowserGoesToTheRegisteredAddress(kind: StoreKind) async throws {
        let live = try LiveServer.make(kind)
        defer { live.stop() }
        let (device, tokens) = try await signedIn(live)
        #expect(try await RevocationTests.userInfoStatus(live, tokens.access) == 200)
        let answer = try await logout(live, ["id_token_hint": tokens.id, "post_logout_redirect_uri": Self.afterLogout, "state": "a b/c"])
        #expect(answer.status == 302 && answer.location == Self.afterLogout + "?state=a%20b/c", "\(answer)")
        #expect(try await RevocationTests.userInfoStatus(live, tokens.access) == 401)
        #expect(try await RevocationTests.refresh(live, device, tokens.refresh).0 == 400)
        let events = try live.store.auditEvents(afterSequence: 0, limit: 100, userID: device.userID, transactionID: nil)
        #expect(events.contains { $0.kind == AuditKind.oidcGrantRevoked.rawValue && $0.details["reason"] == "RP-initiated logout (id_token_hint)" })
        // Again (the grant already ended), by POST, without an address: the same page as for a live one.
        let again = try await logout(live, ["id_token_hint": tokens.id], post: true)
        #expect(again.status == 200 && again.location == nil && again.body.contains("You are signed out of App"))
    }

    /// A grant with offline_access is meant to outlive sign-ins: an expired ID token (a copy in a
    /// browser's history) does not end it; the client's current one, from its last refresh, does.
    @Test func anExpiredHintEndsNoOfflineGrant() async throws {
        let live = try LiveServer.make(.sqlite)
        defer { live.stop() }
        let (device, tokens) = try await signedIn(live)
        live.clock.advance(by: TimeInterval(live.oidc.policy.idTokenLifetime + 60))
        let stale = try await logout(live, ["id_token_hint": tokens.id, "post_logout_redirect_uri": Self.afterLogout])
        #expect(stale.status == 302 && stale.location == Self.afterLogout)
        let (status, refreshed) = try await RevocationTests.refresh(live, device, tokens.refresh)
        #expect(status == 200, "\(refreshed)")
        let current = try #require(refreshed["id_token"] as? String)
        let next = try #require(refreshed["refresh_token"] as? String)
        #expect(try await logout(live, ["id_token_hint": current]).status == 200)
        #expect(try await RevocationTests.refresh(live, device, next).0 == 400)
    }

    /// The registered address is used as registered: its own query keeps its bytes.
    @Test func theRegisteredQueryIsKeptAsItIs() {
        #expect(AuthorizationRedirect.location("https://app.example/bye?x=a+b", ["state": "s 1"]) == "https://app.example/bye?x=a+b&state=s%201")
        #expect(AuthorizationRedirect.location("https://app.example/bye?", ["state": "s"]) == "https://app.example/bye?state=s")
        #expect(AuthorizationRedirect.location("https://app.example/bye", ["state": nil]) == "https://app.example/bye")
        #expect(AuthorizationRedirect.location("com.example.app:/cb", ["code": "c+d", "iss": "https://id.example"])
                == "com.example.app:/cb?code=c%2Bd&iss=https://id.example")
    }

    /// What could make the endpoint an open redirector, or let one client end another's grants,
    /// is refused to the browser itself.
    @Test func refusalsAreTheBrowsersAndEndNothing() async throws {
        let live = try LiveServer.make(.sqlite)
        defer { live.stop() }
        let (_, tokens) = try await signedIn(live)
        let other = try await live.admin(scope: .admin).createOIDCClient(CreateOIDCClientRequest(
            name: "Other", clientType: "public", redirectURIs: [SignInFixture.redirect], postLogoutRedirectURIs: ["https://other.example/"]))
        let parts = tokens.id.split(separator: ".").map(String.init)
        let encoded = try #require(Data(base64URLEncoded: parts[1]))
        var payload = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        payload["aud"] = other.clientID
        let forged = [parts[0], try JSONSerialization.data(withJSONObject: payload).base64URLEncodedString, parts[2]].joined(separator: ".")
        let refused: [[String: String]] = [
            ["id_token_hint": tokens.id, "post_logout_redirect_uri": "https://evil.example/"],
            ["id_token_hint": tokens.id, "post_logout_redirect_uri": "https://other.example/"],
            ["id_token_hint": tokens.id, "client_id": other.clientID],
            ["post_logout_redirect_uri": Self.afterLogout],
            ["client_id": "oc_nobody", "post_logout_redirect_uri": Self.afterLogout],
            ["id_token_hint": forged],
            ["id_token_hint": tokens.access],
            ["id_token_hint": "not-a-token"],
        ]
        for parameters in refused {
            let answer = try await logout(live, parameters)
            #expect(answer.status == 400 && answer.location == nil && answer.body.contains("invalid_request"), "\(parameters.keys.sorted()): \(answer)")
        }
        #expect(try await RevocationTests.userInfoStatus(live, tokens.access) == 200, "nothing refused ended the grant")
        // client_id alone may name the address; it ends nothing, having no grant to name.
        let plain = try await logout(live, ["client_id": other.clientID, "post_logout_redirect_uri": "https://other.example/"])
        #expect(plain.status == 302 && plain.location == "https://other.example/", "\(plain)")
        #expect(try await RevocationTests.userInfoStatus(live, tokens.access) == 200)
    }

    @Test func discoveryNamesTheEndpoint() async throws {
        let live = try LiveServer.make(.sqlite)
        defer { live.stop() }
        let (data, _) = try await live.exchange.exchange(URLRequest(url: live.baseURL.appendingPathComponent("/.well-known/openid-configuration")))
        let discovery = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(discovery["end_session_endpoint"] as? String == live.oidc.policy.issuer + "/oauth2/logout")
    }
}
