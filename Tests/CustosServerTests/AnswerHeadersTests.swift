import CustosTestSupport
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What every answer's headers say: no server name or version, and never stored by a cache
/// unless the route says how it may be (the JWKS and discovery may be cached; nothing that
/// holds a token, a code or personal data is).
@Suite struct AnswerHeadersTests {
    func headers(_ live: LiveServer, _ method: String, _ path: String, body: String? = nil, bearer: String? = nil) async throws
        -> [String: String] {
        var request = URLRequest(url: try #require(URL(string: live.baseURL.absoluteString + path)), timeoutInterval: TestEnvironment.requestTimeout)
        request.httpMethod = method
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        let (_, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        return Dictionary(uniqueKeysWithValues: http.allHeaderFields.compactMap { key, value in
            (key as? String).map { ($0.lowercased(), "\(value)") }
        })
    }

    @Test func noServerNameAndNothingStoredUnlessTheRouteSaysSo() async throws {
        let live = try LiveServer.sqlite()
        defer { live.stop() }
        let (client, userID, _) = try await IdentityFlowTests.activatedUser(live)
        let session = try #require(client.session.sessionToken)
        let answers = [
            try await headers(live, "GET", "/healthz"),
            try await headers(live, "POST", "/v1/login/challenge", body: #"{"user_id":"\#(userID)","device_id":"none"}"#),
            try await headers(live, "GET", "/v1/devices", bearer: session),
            try await headers(live, "POST", "/v1/users", body: #"{"user_id":"someone-new"}"#, bearer: live.relyingPartySecret),
            try await headers(live, "GET", "/no/such/route"),
        ]
        for answer in answers {
            #expect(answer["server"] == nil && answer["x-powered-by"] == nil, "\(answer)")
            #expect(answer["cache-control"] == "no-store", "\(answer)")
        }
        let jwks = try await headers(live, "GET", "/.well-known/jwks.json")
        #expect(jwks["cache-control"]?.hasPrefix("public, max-age=") == true && jwks["server"] == nil, "\(jwks)")
    }
}
