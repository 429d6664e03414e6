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

/// CIBA's edges: ping mode through the outbox, and every way a request ends without tokens.
@Suite struct CIBAFlowTests {
    /// A relying party's OAuth calls, with its API key as the client.
    struct OAuthClient {
        let base: URL
        let id: String
        let secret: String

        func post(_ path: String, _ fields: [String: String], basic: Bool = true) async throws -> (Int, [String: Any]) {
            var request = URLRequest(url: base.appendingPathComponent(path), timeoutInterval: TestEnvironment.requestTimeout)
            request.httpMethod = "POST"
            var form = fields
            if basic {
                request.setValue("Basic " + Data("\(id):\(secret)".utf8).base64EncodedString(), forHTTPHeaderField: "Authorization")
            } else {
                form["client_id"] = id
                form["client_secret"] = secret
            }
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.httpBody = FormBody(fields: form).encoded
            let (data, response) = try await URLSession.shared.data(for: request)
            return ((response as? HTTPURLResponse)?.statusCode ?? 0, (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:])
        }

        func start(_ user: String, acr: String = "urn:custos:acr:0", extra: [String: String] = [:]) async throws -> String {
            let (status, body) = try await post("/oauth2/bc-authorize", ["scope": "openid", "login_hint": user, "acr_values": acr]
                .merging(extra) { _, new in new })
            #expect(status == 200, "\(body)")
            return try #require(body["auth_req_id"] as? String)
        }

        func token(_ authReqID: String) async throws -> (Int, [String: Any]) {
            try await post("/oauth2/token", ["grant_type": "urn:openid:params:grant-type:ciba", "auth_req_id": authReqID])
        }
    }

    func client(_ fixture: StepUpFixture) throws -> OAuthClient {
        let (key, secret) = try fixture.live.apiKeys.create(scope: .rp, label: "shop", actor: "test")
        return OAuthClient(base: fixture.live.baseURL, id: key.id, secret: secret)
    }

    func answer(_ fixture: StepUpFixture, _ action: String) async throws {
        let shown = try #require(try await fixture.client.getNotifications().notifications.first)
        _ = try await fixture.client.updateNotification(shown, action: action)
    }

    /// CIBA access tokens are bound to their request: revocable by their client (RFC 7009, not
    /// by another), and ended by a revocation of the user.
    @Test(arguments: StoreKind.available)
    func cibaTokensAreRevocableAndEndWithTheUser(kind: StoreKind) async throws {
        let fixture = try await StepUpFixture.make(kind)
        defer { fixture.live.stop() }
        let oauth = try client(fixture), other = try client(fixture)
        func accessToken() async throws -> String {
            let authReqID = try await oauth.start(fixture.userID)
            try await answer(fixture, "approve")
            let (status, tokens) = try await oauth.token(authReqID)
            #expect(status == 200, "\(tokens)")
            return try #require(tokens["access_token"] as? String)
        }
        let first = try await accessToken()
        #expect(try await RevocationTests.userInfoStatus(fixture.live, first) == 200)
        #expect(try await other.post("/oauth2/revoke", ["token": first]).0 == 200)
        #expect(try await RevocationTests.userInfoStatus(fixture.live, first) == 200, "another client's revocation is ignored")
        #expect(try await oauth.post("/oauth2/revoke", ["token": first]).0 == 200)
        #expect(try await RevocationTests.userInfoStatus(fixture.live, first) == 401)

        let second = try await accessToken()
        #expect(try await RevocationTests.userInfoStatus(fixture.live, second) == 200)
        _ = try await fixture.live.admin().disableUser(fixture.userID)
        _ = try await fixture.live.admin().enableUser(fixture.userID)
        #expect(try await RevocationTests.userInfoStatus(fixture.live, second) == 401, "a disable ends it, and an enable revives nothing")
    }

    /// An approval rests on the device that gave it: once that device is unbound, a request it
    /// approved yields no tokens, and the tokens it gave before end.
    @Test(arguments: StoreKind.available)
    func unbindingTheApprovingDeviceEndsItsApprovalsAndTheirTokens(kind: StoreKind) async throws {
        let fixture = try await StepUpFixture.make(kind)
        defer { fixture.live.stop() }
        let oauth = try client(fixture)
        let first = try await oauth.start(fixture.userID)
        try await answer(fixture, "approve")
        let (status, tokens) = try await oauth.token(first)
        #expect(status == 200, "\(tokens)")
        let access = try #require(tokens["access_token"] as? String)
        let second = try await oauth.start(fixture.userID)
        try await answer(fixture, "approve")

        try await fixture.live.admin().revokeDevice(userID: fixture.userID, deviceID: fixture.deviceID)
        let (refused, error) = try await oauth.token(second)
        #expect(refused == 400 && error["error"] as? String == "invalid_grant", "\(error)")
        #expect(try await RevocationTests.userInfoStatus(fixture.live, access) == 401)
    }

    @Test(arguments: StoreKind.available)
    func pingModeDeliversThePingThenTheTokens(kind: StoreKind) async throws {
        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        let fixture = try await StepUpFixture.make(kind, webhooks: true, configure: WebhookDeliveryTests.fast)
        defer { fixture.live.stop() }
        let oauth = try client(fixture)
        let registration: CIBAClientRegistration = try await fixture.api.post(
            "/v1/ciba/client", CIBAClientRegistration(backchannelTokenDeliveryMode: "ping", backchannelClientNotificationEndpoint: receiver.url),
            bearer: oauth.secret)
        #expect(registration.clientID == oauth.id && registration.backchannelTokenDeliveryMode == "ping")
        // An endpoint is checked in poll mode too: no 3,000-character URL is stored.
        let (tooLong, tooLongError) = try await fixture.api.postRaw(
            "/v1/ciba/client", CIBAClientRegistration(backchannelTokenDeliveryMode: "poll",
                                                      backchannelClientNotificationEndpoint: receiver.url + "?" + String(repeating: "a", count: 3000)),
            bearer: oauth.secret)
        #expect(tooLong == 422 && tooLongError.error.code == "invalid_callback_url", "\(tooLong) \(tooLongError)")

        // Ping mode needs the client's token for the ping.
        let (missing, refusal) = try await oauth.post("/oauth2/bc-authorize", ["scope": "openid", "login_hint": fixture.userID])
        #expect(missing == 400 && refusal["error"] as? String == "invalid_request")
        let authReqID = try await oauth.start(fixture.userID, extra: ["client_notification_token": "ping-secret-123"])
        try await answer(fixture, "approve")
        #expect(await receiver.wait { !$0.isEmpty })
        let ping = try #require(receiver.requests.first)
        #expect(ping.authorization == "Bearer ping-secret-123")
        #expect((try JSONSerialization.jsonObject(with: ping.body) as? [String: String]) == ["auth_req_id": authReqID])

        let (status, tokens) = try await oauth.token(authReqID)
        #expect(status == 200 && tokens["token_type"] as? String == "Bearer", "\(tokens)")
        let idToken = try #require(tokens["id_token"] as? String)
        let jwks = try JSONDecoder().decode(JWKSet.self, from: try await fixture.api.getData("/.well-known/jwks.json"))
        let kid = try #require(try JWS.unverifiedHeader(idToken).kid)
        let claims = try JSONSerialization.jsonObject(with: try JWS.verify(idToken, key: try #require(jwks.key(withID: kid)).p256PublicKey()).payload)
            as? [String: Any]
        #expect(claims?["aud"] as? String == oauth.id && claims?["sub"] as? String == fixture.userID && claims?["acr"] as? String == "urn:custos:acr:0")
        // Issued once.
        #expect(try await oauth.token(authReqID).1["error"] as? String == "invalid_grant")
    }

    @Test(arguments: StoreKind.available)
    func denialExpiryOtherClientsAndBadRequests(kind: StoreKind) async throws {
        let fixture = try await StepUpFixture.make(kind)
        defer { fixture.live.stop() }
        let oauth = try client(fixture)

        let denied = try await oauth.start(fixture.userID)
        try await answer(fixture, "deny")
        #expect(try await oauth.token(denied).1["error"] as? String == "access_denied")

        let expiring = try await oauth.start(fixture.userID, extra: ["requested_expiry": "30"])
        #expect(try await oauth.token(expiring).1["error"] as? String == "authorization_pending")
        fixture.live.clock.advance(by: 31)
        #expect(try await oauth.token(expiring).1["error"] as? String == "expired_token")

        // Another client cannot redeem it. (A wrong secret's 401 invalid_client, with its
        // WWW-Authenticate challenge, is checked by the outside client, ciba_client.py.)
        let pending = try await oauth.start(fixture.userID)
        let other = try client(fixture)
        #expect(try await other.token(pending).1["error"] as? String == "invalid_grant")
        // client_secret_post works too; grant types this server does not serve do not (the code
        // and refresh grants are OpenID clients', not API keys': BoundSignInTests).
        let (posted, postedBody) = try await oauth.post("/oauth2/token", ["grant_type": "urn:openid:params:grant-type:ciba",
                                                                         "auth_req_id": pending], basic: false)
        #expect(posted == 400 && ["authorization_pending", "slow_down"].contains(postedBody["error"] as? String ?? ""), "\(postedBody)")
        #expect(try await oauth.post("/oauth2/token", ["grant_type": "password", "username": "x"]).1["error"] as? String
            == "unsupported_grant_type")

        for (fields, error) in [
            (["scope": "profile", "login_hint": fixture.userID], "invalid_scope"),
            (["scope": "openid"], "invalid_request"),
            (["scope": "openid", "login_hint": "nobody-at-all"], "unknown_user_id"),
            (["scope": "openid", "login_hint": fixture.userID, "acr_values": "urn:other:acr"], "invalid_request"),
            (["scope": "openid", "login_hint": fixture.userID, "binding_message": String(repeating: "x", count: 65)], "invalid_binding_message"),
            (["scope": "openid", "login_hint": fixture.userID, "authorization_details": "{\"type\":1}"], "invalid_request"),
        ] {
            let (status, body) = try await oauth.post("/oauth2/bc-authorize", fields)
            #expect(status == 400 && body["error"] as? String == error, "\(fields): \(body)")
        }
        let discovery = try JSONSerialization.jsonObject(with: try await fixture.api.getData("/.well-known/openid-configuration")) as? [String: Any]
        #expect(discovery?["issuer"] as? String == LiveServer.verdictSigning.issuer)
        #expect((discovery?["acr_values_supported"] as? [String])?.contains("urn:custos:acr:4") == false)
    }
}
