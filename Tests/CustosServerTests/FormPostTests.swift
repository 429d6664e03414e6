import CustosAPI
@testable import CustosWebApp
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `response_mode=form_post` (OAuth 2.0 Form Post Response Mode): once the client and its
/// redirect URI are known good, the answer is a page whose form the browser posts there.
@Suite struct FormPostTests {
    static let redirect = "https://rp.example:8443/cb"

    func get(_ live: LiveServer, _ parameters: [String: String]) async throws -> (HTTPURLResponse, String) {
        var components = try #require(URLComponents(url: live.baseURL.appendingPathComponent("/oauth2/authorize"), resolvingAgainstBaseURL: false))
        components.queryItems = parameters.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        let (body, response) = try await live.exchange.exchange(URLRequest(url: try #require(components.url)))
        return (response, String(decoding: body, as: UTF8.self))
    }

    @Test func aRefusalIsPostedToTheRedirectURIAndTheValuesStayText() async throws {
        let live = try LiveServer.make(.sqlite)
        defer { live.stop() }
        let client = try await live.admin(scope: .admin).createOIDCClient(CreateOIDCClientRequest(
            name: "Bank web", clientType: "confidential", redirectURIs: [Self.redirect, "com.example.app:/callback"])).clientID
        let base = ["client_id": client, "redirect_uri": Self.redirect, "response_type": "code", "response_mode": "form_post",
                    "state": #"s"><script>alert(1)</script>"#]
        // No openid: refused, and the refusal is a form posted to the redirect URI.
        let (response, page) = try await get(live, base.merging(["scope": "profile"]) { $1 })
        #expect(response.statusCode == 200 && response.value(forHTTPHeaderField: "Location") == nil)
        #expect(response.value(forHTTPHeaderField: "Cache-Control") == "no-store")
        let policy = response.value(forHTTPHeaderField: "Content-Security-Policy") ?? ""
        #expect(policy.contains("form-action 'self' https://rp.example:8443") && policy.contains("script-src 'self'")
                && policy.contains("frame-ancestors 'none'"), "\(policy)")
        #expect(page.contains(#"<form id="form-post" method="post" action="https://rp.example:8443/cb">"#), "\(page)")
        #expect(page.contains(#"<input type="hidden" name="error" value="invalid_scope">"#))
        #expect(page.contains(#"<input type="hidden" name="state" value="s&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;">"#))
        #expect(page.contains(#"name="iss" value="\#(live.oidc.policy.issuer)""#) && !page.contains("<script>alert"))
        #expect(page.contains(#"<script src="/app/formpost.js" defer></script>"#) && page.contains(#"<button type="submit">"#))

        // An app's own scheme cannot take a post: invalid_request, in the query. An unknown mode likewise.
        let (native, _) = try await get(live, base.merging(["scope": "openid", "redirect_uri": "com.example.app:/callback"]) { $1 })
        let nativeLocation = native.value(forHTTPHeaderField: "Location") ?? ""
        #expect(native.statusCode == 302 && nativeLocation.hasPrefix("com.example.app:/callback?") && nativeLocation.contains("error=invalid_request"))
        let (fragment, _) = try await get(live, base.merging(["scope": "openid", "response_mode": "fragment"]) { $1 })
        #expect(fragment.statusCode == 302 && (fragment.value(forHTTPHeaderField: "Location") ?? "").contains("error=invalid_request"))
        // Nor can a page's policy name an IPv6 literal: the query there too.
        let loopback = try await live.admin(scope: .admin).createOIDCClient(CreateOIDCClientRequest(
            name: "Native", clientType: "public", redirectURIs: ["http://[::1]:9/cb"])).clientID
        let (literal, _) = try await get(live, base.merging(["client_id": loopback, "redirect_uri": "http://[::1]:9/cb", "scope": "openid"]) { $1 })
        #expect(literal.statusCode == 302 && (literal.value(forHTTPHeaderField: "Location") ?? "").hasPrefix("http://[::1]:9/cb?error=invalid_request"))
        // Before the redirect URI is known good nothing is posted anywhere.
        let (stray, strayPage) = try await get(live, base.merging(["scope": "openid", "redirect_uri": "https://evil.example/cb"]) { $1 })
        #expect(stray.statusCode == 400 && !strayPage.contains("<form"))
        // A valid request gets the sign-in page.
        let (valid, _) = try await get(live, base.merging(["scope": "openid"]) { $1 })
        #expect(valid.statusCode == 200)
    }

    /// The app that approves a form_post request is told so: the code is to be posted, and
    /// `location` (the query form) is not where the browser goes.
    @Test func theDeviceIsToldTheCodeIsToBePosted() async throws {
        let live = try LiveServer.make(.sqlite)
        defer { live.stop() }
        let client = try await live.admin(scope: .admin).createOIDCClient(CreateOIDCClientRequest(
            name: "Shop", clientType: "public", redirectURIs: [Self.redirect])).clientID
        let device = try await BoundSignInAttackTests.RawDevice.make(live, clientID: client)
        for (mode, expected) in [("form_post", "form_post"), ("query", nil)] as [(String, String?)] {
            var request = device.beginRequest(redirectURI: Self.redirect)
            request.responseMode = mode
            let challenge: DeviceSignInChallengeResponse = try await device.api.post("/v1/oidc/device-sign-in", request)
            let answer: AuthorizationCodeResponse = try await device.api.post(
                "/v1/oidc/device-sign-in/\(challenge.authorizationID)/assertion", try device.assertion(challenge))
            #expect(answer.responseMode == expected && answer.redirectURI == Self.redirect, "\(mode)")
        }
    }

    /// The web app's sign-in page lets its forms reach the client's origin only when the
    /// request asked for form_post; discovery says form_post is served.
    @Test func theSignInPageMayPostToTheClientOnlyForFormPost() async throws {
        let web = try WebApp(root: try #require(WebApp.bundled(), "the resources bundle is not beside the test binary"))
        let posting = try #require(web.authorizePage(clientName: "Shop", issuer: "https://id.example", scope: "openid", postingTo: "https://rp.example"))
        #expect(posting.headers["Content-Security-Policy"]?.contains("form-action 'self' https://rp.example;") == true)
        let plain = try #require(web.authorizePage(clientName: "Shop", issuer: "https://id.example", scope: "openid"))
        #expect(plain.headers["Content-Security-Policy"]?.contains("form-action 'self';") == true)
        #expect(web.assets["formpost.js"] != nil)

        let live = try LiveServer.make(.sqlite)
        defer { live.stop() }
        let (data, _) = try await live.exchange.exchange(URLRequest(url: live.baseURL.appendingPathComponent("/.well-known/openid-configuration")))
        let discovery = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(discovery["response_modes_supported"] as? [String] == ["query", "form_post"])
    }
}
