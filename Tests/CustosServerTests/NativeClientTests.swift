import CustosAPI
import CustosCrypto
import CustosTestSupport
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A native app as its OAuth library signs in: a loopback redirect URI on the port the system
/// gave its listener (RFC 8252 §7.3), and a public client named in HTTP Basic with an empty
/// secret (oidc-agent's way).
@Suite struct NativeClientTests {
    static let registered = ["http://127.0.0.1:18096/cb", "http://[::1]:18096/cb", "http://localhost:18096/cb"]

    @Test(arguments: StoreKind.available)
    func aLoopbackRedirectOnAnyPortSignsInAndOnlyThatURIRedeemsTheCode(kind: StoreKind) async throws {
        let live = try LiveServer.make(kind)
        defer { live.stop() }
        let client = try await live.admin(scope: .admin).createOIDCClient(CreateOIDCClientRequest(
            name: "Native app", clientType: "public", redirectURIs: Self.registered)).clientID
        let device = try await BoundSignInAttackTests.RawDevice.make(live, clientID: client)

        // Another port on a registered loopback address is the same redirect URI; anything else is not.
        for accepted in ["http://127.0.0.1:18097/cb", "http://[::1]:5000/cb", "http://127.0.0.1/cb"] {
            let (status, error) = try await device.api.postRaw("/v1/oidc/device-sign-in", device.beginRequest(redirectURI: accepted))
            #expect(status == 200, "\(accepted): \(status) \(error.error.code)")
        }
        for refused in ["http://127.0.0.1:18097/other", "http://localhost:18097/cb", "http://127.0.0.2:18096/cb",
                        "https://127.0.0.1:18096/cb", "http://user@127.0.0.1:18097/cb", "http://127.0.0.1:18097/cb?x=1",
                        "http://[::1]:18097/cb#f"] {
            let (status, error) = try await device.api.postRaw("/v1/oidc/device-sign-in", device.beginRequest(redirectURI: refused))
            // OAuth's error body, not the API's envelope: its raw text is the envelope's message here.
            #expect(status == 400 && error.error.message.contains(#""error":"invalid_request""#)
                        && error.error.message.contains("redirect_uri is not registered"), "\(refused): \(status) \(error.error.message)")
        }

        let redirect = "http://127.0.0.1:49152/cb"
        let challenge = try await device.begin(redirectURI: redirect)
        let code: AuthorizationCodeResponse = try await device.api.post(
            "/v1/oidc/device-sign-in/\(challenge.authorizationID)/assertion", try device.assertion(challenge))
        #expect(code.location.hasPrefix(redirect + "?"))
        var fields = ["grant_type": "authorization_code", "code": code.code, "redirect_uri": "http://127.0.0.1:18096/cb",
                      "code_verifier": BoundSignInAttackTests.RawDevice.verifier]
        // The registered URI is not the one the code was sent to: refused, and the code is not spent.
        var (status, body) = try await Self.token(live, fields, basic: (client, ""))
        #expect(status == 400 && body["error"] as? String == "invalid_grant", "\(body)")
        fields["redirect_uri"] = redirect
        (status, body) = try await Self.token(live, fields, basic: (client, "not-a-secret"))
        #expect(status == 401 && body["error"] as? String == "invalid_client", "a public client has no secret: \(body)")
        (status, body) = try await Self.token(live, fields, basic: (client, ""))
        #expect(status == 200 && body["access_token"] is String, "\(body)")
    }

    /// An empty secret never stands for a confidential client's.
    @Test func aConfidentialClientWithAnEmptySecretIsRefused() async throws {
        let live = try LiveServer.make(.sqlite)
        defer { live.stop() }
        let client = try await live.admin(scope: .admin).createOIDCClient(CreateOIDCClientRequest(
            name: "Bank web", clientType: "confidential", redirectURIs: ["https://rp.example/cb"])).clientID
        for (basic, form) in [((client, ""), [String: String]()), (nil, ["client_id": client, "client_secret": ""])] {
            var fields = ["grant_type": "refresh_token", "refresh_token": "rt"]
            fields.merge(form) { $1 }
            let (status, body) = try await Self.token(live, fields, basic: basic)
            #expect(status == 401 && body["error"] as? String == "invalid_client", "\(body)")
        }
    }

    static func token(_ live: LiveServer, _ fields: [String: String], basic: (String, String)?) async throws -> (Int, [String: Any]) {
        var request = URLRequest(url: live.baseURL.appendingPathComponent("/oauth2/token"), timeoutInterval: TestEnvironment.requestTimeout)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        if let (id, secret) = basic {
            let form = { (text: String) in text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text }
            request.setValue("Basic " + Data("\(form(id)):\(form(secret))".utf8).base64EncodedString(), forHTTPHeaderField: "Authorization")
        }
        request.httpBody = FormBody(fields: fields).encoded
        // Through the server's own exchange: URLSession on Linux did not return (10 minutes, past
        // its timeout) on a 401 carrying `WWW-Authenticate: Basic` to a request that sent credentials.
        let (data, response) = try await live.exchange.exchange(request)
        return (response.statusCode, (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:])
    }
}
