import CustosTestSupport
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The OAuth endpoints answer a malformed request (a NUL in the query, a body that is not JSON)
/// in OAuth's error body, as openapi.yaml declares, not in the standard envelope (found by
/// schemathesis, Tests/Clients/api_fuzz.py).
@Suite struct OAuthErrorBodyTests {
    func send(_ live: LiveServer, _ method: String, _ pathAndQuery: String, body: Data? = nil) async throws -> (Int, [String: Any]) {
        var request = URLRequest(url: try #require(URL(string: live.baseURL.absoluteString + pathAndQuery)),
                                 timeoutInterval: TestEnvironment.requestTimeout)
        request.httpMethod = method
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:])
    }

    @Test(arguments: StoreKind.available)
    func malformedRequestsToOAuthEndpointsGetOAuthsErrorBody(kind: StoreKind) async throws {
        let live = try LiveServer.make(kind)
        defer { live.stop() }
        for (method, path, body) in [("GET", "/oauth2/authorize?client_id=%0A&response_type=code", nil),
                                     ("POST", "/oauth2/token?x=%00", nil),
                                     ("POST", "/v1/oidc/device-sign-in", Data([0])),
                                     ("POST", "/v1/oidc/device-sign-in", Data("{\"client_id\":".utf8))] as [(String, String, Data?)] {
            let (status, answer) = try await send(live, method, path, body: body)
            #expect(status == 400 && answer["error"] as? String == "invalid_request" && answer["error_description"] is String,
                    "\(method) \(path): \(status) \(answer)")
        }
        // A NUL inside a form parameter (which PostgreSQL's text cannot hold) is the client's mistake.
        for path in ["/oauth2/token", "/oauth2/introspect"] {
            var request = URLRequest(url: live.baseURL.appendingPathComponent(path), timeoutInterval: TestEnvironment.requestTimeout)
            request.httpMethod = "POST"
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data("grant_type=authorization_code&client_id=a%00b&token=x%00y".utf8)
            let (data, response) = try await URLSession.shared.data(for: request)
            let answer = (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
            #expect((response as? HTTPURLResponse)?.statusCode == 400 && answer["error"] as? String == "invalid_request", "\(path): \(answer)")
        }
        // Elsewhere the standard envelope stays.
        let (status, answer) = try await send(live, "POST", "/v1/login/challenge", body: Data([0]))
        #expect(status == 400 && (answer["error"] as? [String: Any])?["code"] as? String == "malformed_json", "\(answer)")
    }
}
