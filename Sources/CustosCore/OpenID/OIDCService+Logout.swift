import CustosAPI
import Foundation

/// What RP-Initiated Logout did, and where the browser goes next.
public struct EndedSession: Equatable, Sendable {
    /// The client the request named (by its `id_token_hint` or `client_id`), if any.
    public var clientName: String?
    /// The registered `post_logout_redirect_uri` with `state`, when one was asked for.
    public var redirect: String?
}

extension OIDCService {
    /// RP-Initiated Logout 1.0. No browser session is kept here, so what a logout ends is the
    /// grant the `id_token_hint` names (its `sid`): its refresh token and access tokens stop
    /// working at once. The browser is sent on only to a `post_logout_redirect_uri` the client
    /// registered, named by the hint or `client_id`; every refusal is answered to the browser
    /// itself (`invalid_request`), never redirected.
    public func endSession(_ parameters: [String: String]) throws -> EndedSession {
        for (name, value) in parameters where value.utf8.count > AuthorizationRequest.maximumLength(of: name) {
            throw OAuthError(.invalidRequest, "a parameter is longer than \(AuthorizationRequest.maximumLength(of: name)) bytes")
        }
        var hinted: (client: OIDCClient, userID: String, grantID: String?, expired: Bool)?
        if let hint = parameters["id_token_hint"] {
            guard let claims = verifiedIDToken(hint), let client = try client(named: claims.aud.first),
                  claims.aud.count == 1 else {
                throw OAuthError(.invalidRequest, "id_token_hint is not an ID token this server signed for one of its clients")
            }
            hinted = (client, claims.sub, claims.sid, (claims.exp ?? 0) <= clock.now().timeIntervalSince1970)
        }
        var client = hinted?.client
        if let clientID = parameters["client_id"] {
            guard let named = try self.client(named: clientID) else { throw OAuthError(.invalidRequest, "unknown client_id") }
            if let client, client.id != named.id { throw OAuthError(.invalidRequest, "client_id is not the id_token_hint's audience") }
            client = named
        }
        var redirect: String?
        if let uri = parameters["post_logout_redirect_uri"] {
            guard let client else { throw OAuthError(.invalidRequest, "post_logout_redirect_uri needs id_token_hint or client_id") }
            guard client.postLogoutRedirectURIs.contains(uri) else {
                throw OAuthError(.invalidRequest, "post_logout_redirect_uri is not registered for this client")
            }
            redirect = AuthorizationRedirect.location(uri, ["state": parameters["state"]])
        }
        // An expired hint (a logout after the sign-in's end, or a copy left in a browser's
        // history) ends a sign-in's grant, but not one that holds offline_access: that grant is
        // meant to outlive sign-ins (OIDC Core §11), so only a current ID token — the client's
        // newest, from its last refresh — ends it (or the client's revocation of its token).
        if let hinted, let grantID = hinted.grantID, let grant = try store.grant(id: grantID),
           grant.clientID == hinted.client.id, grant.userID == hinted.userID, grant.revokedAt == nil,
           !(hinted.expired && grant.scope.split(separator: " ").contains("offline_access")) {
            try revokeGrant(grant.id, reason: "RP-initiated logout (id_token_hint)", now: clock.now())
        }
        // Whether a grant was open is not told: the answer is the same either way.
        return EndedSession(clientName: client?.name, redirect: redirect)
    }

    /// An ID token this server signed (expired ones too: a logout often follows a session's end).
    func verifiedIDToken(_ token: String) -> IDTokenHint? {
        guard token.utf8.count <= 8192, token.split(separator: ".", omittingEmptySubsequences: false).count == 3,
              let verified = try? signer.verify(token, now: clock.now()), verified.type == "JWT",
              let claims = try? JSONDecoder().decode(IDTokenHint.self, from: verified.payload), claims.iss == policy.issuer,
              !claims.sub.isEmpty else { return nil }
        return claims
    }
}

/// What a hint is read for: `aud` a string or an array (RFC 7519 §4.1.3), and the grant (`sid`).
struct IDTokenHint: Decodable {
    let iss: String
    let sub: String
    let aud: [String]
    let sid: String?
    let exp: TimeInterval?

    enum CodingKeys: String, CodingKey { case iss, sub, aud, sid, exp }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        iss = try container.decode(String.self, forKey: .iss)
        sub = try container.decode(String.self, forKey: .sub)
        sid = try container.decodeIfPresent(String.self, forKey: .sid)
        exp = try container.decodeIfPresent(TimeInterval.self, forKey: .exp)
        if let list = try? container.decode([String].self, forKey: .aud) {
            aud = list
        } else {
            aud = [try container.decode(String.self, forKey: .aud)]
        }
    }
}
