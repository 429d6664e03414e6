import CustosAPI
import Foundation

extension OIDCService {
    // MARK: Registration (the admin API)

    /// Registers a client; a confidential client without an assertion key gets a secret,
    /// returned here once (only its digest is kept).
    public func createClient(_ draft: OIDCClientDraft, actor: String) throws -> (client: OIDCClient, secret: String?) {
        let name = draft.name.trimmingCharacters(in: .whitespaces)
        guard (1...100).contains(name.count) else { throw OIDCError.invalid("name", "must be 1 to 100 characters") }
        guard (1...10).contains(draft.redirectURIs.count) else { throw OIDCError.invalid("redirect_uris", "must hold 1 to 10 URIs") }
        for uri in draft.redirectURIs { try Self.checkRedirectURI(uri) }
        guard draft.postLogoutRedirectURIs.count <= 10 else { throw OIDCError.invalid("post_logout_redirect_uris", "must hold at most 10 URIs") }
        for uri in draft.postLogoutRedirectURIs { try Self.checkRedirectURI(uri, field: "post_logout_redirect_uris") }
        let scopes = Array(Set(draft.scopes + ["openid"])).sorted()
        if let unknown = scopes.first(where: { !Self.supportedScopes.contains($0) }) {
            throw OIDCError.invalid("scopes", "names \(unknown); supported: \(Self.supportedScopes.joined(separator: " "))")
        }
        let encryptionJWK = try draft.encryptionJWK.map { try clientKeys.normalizePublicKey($0, field: "encryption_jwk") }
        let assertionJWK = try draft.assertionJWK.map { try clientKeys.normalizePublicKey($0, field: "assertion_jwk") }
        if draft.kind == .public, assertionJWK != nil {
            throw OIDCError.invalid("assertion_jwk", "is for confidential clients (private_key_jwt)")
        }
        var secret: String?
        if draft.kind == .confidential, assertionJWK == nil {
            secret = "cx_" + Data(random.bytes(count: 32)).base64URLEncodedString
        }
        let client = OIDCClient(id: OIDCClient.idPrefix + random.hexID(bytes: 12), name: name, kind: draft.kind, secretDigest: secret.map(digester.digest),
                                redirectURIs: draft.redirectURIs, scopes: scopes, encryptionJWK: encryptionJWK, assertionJWK: assertionJWK,
                                idTokenAlgorithm: draft.idTokenAlgorithm, postLogoutRedirectURIs: draft.postLogoutRedirectURIs, createdAt: clock.now())
        try store.atomically {
            try store.saveOIDCClient(client)
            try audit?.record(.oidcClientCreated, userID: nil, details: [AuditActor.detail: actor, "client_id": client.id,
                                                                          "client_type": client.kind.rawValue])
        }
        return (client, secret)
    }

    public func clients() throws -> [OIDCClient] { try store.oidcClients() }

    public func client(id: String) throws -> OIDCClient {
        guard let client = try client(named: id) else { throw OIDCError.clientNotFound }
        return client
    }

    /// Deletes the client and every grant and token it holds.
    public func deleteClient(id: String, actor: String) throws {
        guard id.utf8.count <= 128 else { throw OIDCError.clientNotFound }
        try store.atomically {
            guard try store.deleteOIDCClient(id: id) else { throw OIDCError.clientNotFound }
            try audit?.record(.oidcClientDeleted, userID: nil, details: [AuditActor.detail: actor, "client_id": id])
        }
    }

    /// Redirect URIs (RFC 8252, RFC 9700 §4.1): absolute, no fragment; https, http on a loopback
    /// host (native apps), or a private-use scheme in reverse-domain form (`com.example.app:/cb`).
    static func checkRedirectURI(_ uri: String, field: String = "redirect_uris") throws {
        guard uri.utf8.count <= 512, let url = URLComponents(string: uri), let scheme = url.scheme?.lowercased() else {
            throw OIDCError.invalid(field, "holds \(uri), not an absolute URI")
        }
        guard url.fragment == nil else { throw OIDCError.invalid(field, "holds \(uri), which has a fragment") }
        switch scheme {
        case "https":
            guard url.host?.isEmpty == false else { throw OIDCError.invalid(field, "holds \(uri) without a host") }
        case "http":
            guard ["127.0.0.1", "localhost", "[::1]", "::1"].contains(url.host ?? "") else {
                throw OIDCError.invalid(field, "holds \(uri): plain http only to a loopback host")
            }
        default:
            guard scheme.contains("."), !["javascript", "data", "file"].contains(scheme) else {
                throw OIDCError.invalid(field, "holds \(uri): use https, http to loopback, or a reverse-domain private-use scheme")
            }
        }
        guard url.user == nil, url.password == nil else { throw OIDCError.invalid(field, "holds \(uri) with credentials") }
    }

    // MARK: Client authentication (RFC 6749 §2.3, OpenID Connect Core §9)

    static let jwtBearerAssertion = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    /// The clock skew tolerated in a client assertion's `nbf` and `iat`, seconds.
    static let clockSkew: TimeInterval = 30

    /// The client of a token, revocation or introspection request: a public client by its
    /// `client_id` alone; a confidential client by exactly one of `client_secret_basic`,
    /// `client_secret_post` or `private_key_jwt`. An empty secret is no secret: a public
    /// client that names itself in HTTP Basic as `client_id:` (oidc-agent does) or sends an empty
    /// `client_secret` is named by that, and a confidential client is refused.
    public func authenticateClient(_ credentials: ClientCredentials) throws -> OIDCClient {
        let basic = credentials.basic
        let assertion = credentials.assertion
        let formSecret = credentials.clientSecret.flatMap { $0.isEmpty ? nil : $0 }
        guard [basic != nil, formSecret != nil, assertion != nil].filter({ $0 }).count <= 1 else {
            throw OAuthError(.invalidRequest, "use one client authentication method")
        }
        let secret = basic.flatMap { $0.secret.isEmpty ? nil : $0.secret } ?? formSecret
        var id = basic?.id ?? credentials.clientID
        if let assertion {
            guard credentials.assertionType == Self.jwtBearerAssertion else {
                throw OAuthError(.invalidClient, "client_assertion_type must be \(Self.jwtBearerAssertion)")
            }
            // client_id is optional with an assertion: the unverified sub names the key to verify with.
            id = id ?? Self.unverifiedSubject(assertion)
        }
        if let basicID = basic?.id, let formID = credentials.clientID, basicID != formID {
            throw OAuthError(.invalidClient, "client_id does not match the credentials")
        }
        guard let client = try client(named: id) else { throw OAuthError(.invalidClient, "client authentication failed") }
        switch client.kind {
        case .public:
            guard secret == nil, assertion == nil else { throw OAuthError(.invalidClient, "a public client sends its client_id alone") }
        case .confidential:
            if let assertion {
                try verifyClientAssertion(assertion, client: client)
            } else if let secret, let stored = client.secretDigest {
                guard Self.equalDigests(digester.digest(secret), stored) else { throw OAuthError(.invalidClient, "client authentication failed") }
            } else {
                throw OAuthError(.invalidClient, "client authentication failed")
            }
        }
        return client
    }

    /// `private_key_jwt`: an ES256 JWT signed by the client's registered key, with `iss` and
    /// `sub` the client id, `aud` this issuer or its token endpoint, a near `exp`, and a `jti`
    /// never seen before.
    private func verifyClientAssertion(_ assertion: String, client: OIDCClient) throws {
        guard let jwk = client.assertionJWK else { throw OAuthError(.invalidClient, "this client registered no assertion key") }
        let verified: VerifiedToken
        do { verified = try clientKeys.verify(assertion, with: jwk) } catch {
            throw OAuthError(.invalidClient, "the client assertion's signature does not verify")
        }
        guard let claims = try? JSONSerialization.jsonObject(with: verified.payload) as? [String: Any] else {
            throw OAuthError(.invalidClient, "the client assertion's claims are not JSON")
        }
        let now = clock.now()
        let audiences = (claims["aud"] as? [String]) ?? [(claims["aud"] as? String)].compactMap { $0 }
        guard claims["iss"] as? String == client.id, claims["sub"] as? String == client.id else {
            throw OAuthError(.invalidClient, "the client assertion's iss and sub must be the client id")
        }
        guard audiences.contains(where: { $0 == policy.issuer || $0 == policy.tokenEndpoint }) else {
            throw OAuthError(.invalidClient, "the client assertion's aud must be this issuer or its token endpoint")
        }
        guard let exp = (claims["exp"] as? NSNumber)?.doubleValue, exp > now.timeIntervalSince1970,
              exp <= now.addingTimeInterval(policy.clientAssertionLifetime).timeIntervalSince1970 else {
            throw OAuthError(.invalidClient, "the client assertion must expire within \(Int(policy.clientAssertionLifetime)) seconds")
        }
        // RFC 7523 §3: not before nbf, and not issued in the future (beyond a small clock skew).
        for claim in ["nbf", "iat"] where claims[claim] != nil {
            guard let value = (claims[claim] as? NSNumber)?.doubleValue else {
                throw OAuthError(.invalidClient, "the client assertion's \(claim) must be a number")
            }
            guard value <= now.timeIntervalSince1970 + Self.clockSkew else {
                throw OAuthError(.invalidClient, "the client assertion's \(claim) is in the future")
            }
        }
        guard let jti = claims["jti"] as? String, !jti.isEmpty, jti.utf8.count <= 256,
              try store.recordClientAssertion(digest: digester.digest(client.id + "\u{0}" + jti), expiresAt: Date(timeIntervalSince1970: exp)) else {
            throw OAuthError(.invalidClient, "the client assertion's jti is missing or was used before")
        }
    }

    private static func unverifiedSubject(_ jwt: String) -> String? {
        let segments = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, let payload = Data(base64URLEncoded: String(segments[1])),
              let claims = try? JSONSerialization.jsonObject(with: payload) as? [String: Any] else { return nil }
        return claims["sub"] as? String
    }

    /// Compares two digests without an early exit.
    static func equalDigests(_ a: Data, _ b: Data) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
