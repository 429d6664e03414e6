import CustosAPI
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `POST /oauth2/authorize` sends a valid request on to the GET endpoint, and refuses at the
/// client's redirect URI what the GET endpoint could not take as an address.
@Suite struct AuthorizeByPostTests {
    static let redirect = "https://rp.example/cb"

    func post(_ live: LiveServer, _ fields: [String: String]) async throws -> (status: Int, location: [String: String], raw: String) {
        var request = URLRequest(url: live.baseURL.appendingPathComponent("/oauth2/authorize"))
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = FormBody(fields: fields).encoded
        let (_, response) = try await live.exchange.exchange(request)
        let location = response.value(forHTTPHeaderField: "Location") ?? ""
        let query = URLComponents(string: location)?.queryItems ?? []
        return (response.statusCode, Dictionary(query.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first }), location)
    }

    @Test func aValidFormGoesOnToGetAndWhatAnAddressCannotCarryIsRefusedAtTheRedirectURI() async throws {
        let live = try LiveServer.make(.sqlite)
        defer { live.stop() }
        let client = try await live.admin(scope: .admin).createOIDCClient(CreateOIDCClientRequest(
            name: "Bank web", clientType: "confidential", redirectURIs: [Self.redirect])).clientID
        let fields = ["client_id": client, "redirect_uri": Self.redirect, "response_type": "code", "scope": "openid profile",
                      "state": "s 1+é", "nonce": "n"]
        let valid = try await post(live, fields)
        #expect(valid.status == 303 && valid.raw.hasPrefix(live.oidc.policy.issuer + "/oauth2/authorize?"), "\(valid.raw)")
        #expect(valid.location == fields, "the GET endpoint gets the form unchanged")

        // Each value within the 2048 bytes a parameter may have; together, past what an address carries.
        let long = ["nonce": String(repeating: "n", count: 2000), "state": String(repeating: "é", count: 600)]
        for (changes, reason) in [(["state": "a\nb"], "control character"), (long, "longer than")] {
            let hostile = fields.merging(changes) { $1 }
            let refused = try await post(live, hostile)
            #expect(refused.status == 302 && refused.raw.hasPrefix(Self.redirect + "?"), "\(reason): \(refused.raw.prefix(200))")
            #expect(refused.location["error"] == "invalid_request" && refused.location["error_description"]?.contains(reason) == true)
            #expect(refused.location["state"] == hostile["state"] && refused.location["iss"] == live.oidc.policy.issuer)
        }
        // Refused before the redirect URI is known good: answered to the user agent, never redirected.
        var unknown = fields
        unknown["client_id"] = "oc_nobody"
        let stray = try await post(live, unknown)
        #expect(stray.status == 400 && stray.raw.isEmpty)
    }

    /// acr_values no sign-in here can meet (a server biometric, a level unknown here) are
    /// answered at once at the redirect URI, by GET and POST alike; one a device meets is served.
    @Test func acrValuesNoSignInMeetsAreAnsweredAtTheRedirectURI() async throws {
        let live = try LiveServer.make(.sqlite)
        defer { live.stop() }
        let client = try await live.admin(scope: .admin).createOIDCClient(CreateOIDCClientRequest(
            name: "Bank web", clientType: "confidential", redirectURIs: [Self.redirect])).clientID
        let fields = ["client_id": client, "redirect_uri": Self.redirect, "response_type": "code", "scope": "openid", "state": "s"]
        for acr in ["urn:custos:acr:4", "urn:mace:incommon:iap:silver", "urn:custos:acr:4 urn:custos:acr:9"] {
            var components = try #require(URLComponents(url: live.baseURL.appendingPathComponent("/oauth2/authorize"), resolvingAgainstBaseURL: false))
            components.queryItems = fields.merging(["acr_values": acr]) { $1 }.map { URLQueryItem(name: $0.key, value: $0.value) }
            let (_, response) = try await live.exchange.exchange(URLRequest(url: try #require(components.url)))
            let location = URLComponents(string: response.value(forHTTPHeaderField: "Location") ?? "")
            let query = Dictionary((location?.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
            #expect(response.statusCode == 302 && query["error"] == "unmet_authentication_requirements" && query["state"] == "s"
                    && query["iss"] == live.oidc.policy.issuer, "\(acr): \(location?.string ?? "")")
            let posted = try await post(live, fields.merging(["acr_values": acr]) { $1 })
            #expect(posted.status == 302 && posted.location["error"] == "unmet_authentication_requirements")
        }
        var components = try #require(URLComponents(url: live.baseURL.appendingPathComponent("/oauth2/authorize"), resolvingAgainstBaseURL: false))
        components.queryItems = fields.merging(["acr_values": "urn:custos:acr:4 urn:custos:acr:3"]) { $1 }.map { URLQueryItem(name: $0.key, value: $0.value) }
        let (_, served) = try await live.exchange.exchange(URLRequest(url: try #require(components.url)))
        #expect(served.statusCode == 200)
    }
}
