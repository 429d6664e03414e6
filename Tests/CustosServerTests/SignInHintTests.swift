import CustosAPI
import CustosCore
import CustosCrypto
import CustosTestSupport
import CustosWebApp
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `login_hint` and `id_token_hint` (OIDC Core §3.1.2.1): a request for one user is never
/// signed in by another user's device, and a hint the server cannot vouch for is refused at the
/// client's redirect URI.
@Suite struct SignInHintTests {
    typealias RawDevice = BoundSignInAttackTests.RawDevice

    /// `device`'s sign-in for its request with these extra parameters, both steps: the status
    /// and the OAuth error code of the step that refused (nil when a code was issued).
    func begin(_ device: RawDevice, loginHint: String? = nil, idTokenHint: String? = nil) async throws -> (Int, String?) {
        var request = device.beginRequest()
        request.loginHint = loginHint
        request.idTokenHint = idTokenHint
        func code(_ body: Data) -> String? {
            let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any]
            return (object?["error"] as? [String: Any])?["code"] as? String ?? object?["error"] as? String
        }
        let (status, body) = try await device.api.postData("/v1/oidc/device-sign-in", request)
        guard status == 200 else { return (status, code(body)) }
        let challenge = try WireJSON.decoder().decode(DeviceSignInChallengeResponse.self, from: body)
        let (answered, answer) = try await device.api.postData("/v1/oidc/device-sign-in/\(challenge.authorizationID)/assertion",
                                                              try device.assertion(challenge))
        return (answered, answered == 200 ? nil : code(answer))
    }

    /// An ID token the server issued to `device`'s client for its user.
    func idToken(_ device: RawDevice, at live: LiveServer) async throws -> String {
        try await RevocationTests.signIn(device, at: live).id
    }

    @Test(arguments: StoreKind.available)
    func anotherUsersDeviceIsRefusedNotSignedIn(kind: StoreKind) async throws {
        let live = try LiveServer.make(kind)
        defer { live.stop() }
        let alice = try await RawDevice.make(live)
        let bob = try await RawDevice.make(live, clientID: alice.clientID)
        // The request is for alice: bob's device is refused once it has signed (so a device id and a
        // guess learn no owner), alice's is taken. A hint that is no user id is refused outright.
        let (status, code) = try await begin(bob, loginHint: alice.userID)
        #expect(status == 403 && code == "login_required")
        #expect(try await begin(alice, loginHint: alice.userID).0 == 200)
        for hint in ["", "Security check: type 42", String(repeating: "a", count: 129)] {
            #expect(try await begin(alice, loginHint: hint).1 == "invalid_request", "\(hint)")
        }

        // Her ID token names her the same way; one of bob's, or one that disagrees with login_hint, does not pass for her.
        let hers = try await idToken(alice, at: live), his = try await idToken(bob, at: live)
        #expect(try await begin(alice, idTokenHint: hers).0 == 200)
        #expect(try await begin(bob, idTokenHint: hers).1 == "login_required")
        #expect(try await begin(bob, idTokenHint: his).0 == 200)
        #expect(try await begin(alice, loginHint: bob.userID, idTokenHint: hers).1 == "invalid_request")
    }

    /// An id_token_hint the server did not sign for this client is refused, at the redirect URI
    /// with the state once the client and URI are good: a forged signature, another client's
    /// token, an access token, garbage.
    @Test func anIDTokenHintTheServerDidNotIssueToTheClientIsRefused() async throws {
        let live = try LiveServer.make(.sqlite)
        defer { live.stop() }
        let device = try await RawDevice.make(live)
        let otherClient = try await live.admin(scope: .admin).createOIDCClient(CreateOIDCClientRequest(
            name: "Other app", clientType: "public", redirectURIs: [SignInFixture.redirect])).clientID
        let elsewhere = try await RawDevice.make(live, clientID: otherClient)
        let token = try await idToken(device, at: live)
        let parts = token.split(separator: ".").map(String.init)
        let encoded = try #require(Data(base64URLEncoded: parts[1]))
        var payload = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        payload["sub"] = elsewhere.userID
        let forged = [parts[0], try JSONSerialization.data(withJSONObject: payload).base64URLEncodedString, parts[2]].joined(separator: ".")
        let access = try await RevocationTests.signIn(device, at: live).access
        for hint in [forged, try await idToken(elsewhere, at: live), access, "not-a-token", token + "x"] {
            #expect(try await begin(device, idTokenHint: hint).1 == "invalid_request", "\(hint.prefix(40))")
            var components = try #require(URLComponents(url: live.baseURL.appendingPathComponent("/oauth2/authorize"), resolvingAgainstBaseURL: false))
            let request = device.beginRequest()
            components.queryItems = request.parameters.map { URLQueryItem(name: $0.key, value: $0.value) } + [URLQueryItem(name: "id_token_hint", value: hint)]
            var get = URLRequest(url: try #require(components.url), timeoutInterval: TestEnvironment.requestTimeout)
            get.httpMethod = "GET"
            let (_, response) = try await live.exchange.exchange(get)
            let location = try #require(response.value(forHTTPHeaderField: "Location"))
            #expect(response.statusCode == 302 && location.hasPrefix(SignInFixture.redirect + "?") && location.contains("error=invalid_request")
                    && location.contains("state=s"), "\(location)")
        }
    }

    /// The sign-in page gets the user the request is for as text, and a value holding a
    /// placeholder's text stays that text.
    @Test func theSignInPageNamesTheHintedUserAsText() throws {
        let web = try WebApp(root: try #require(WebApp.bundled(), "the resources bundle is not beside the test binary"))
        let hostile = #""><script>alert(1)</script>{{scope}}"#
        let page = try #require(web.authorizePage(clientName: "Shop {{login_hint}}", issuer: "https://id.example", scope: "openid email",
                                                  loginHint: hostile))
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(html.contains(#"data-login-hint="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;{{scope}}""#), "\(html)")
        #expect(html.contains(#"data-client-name="Shop {{login_hint}}""#) && html.contains(#"data-scope="openid email""#))
        #expect(!html.contains("<script>alert"))
        let none = try #require(web.authorizePage(clientName: "Shop", issuer: "https://id.example", scope: "openid"))
        #expect(String(decoding: none.body, as: UTF8.self).contains(#"data-login-hint="""#))
    }
}
