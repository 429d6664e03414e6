import CustosAPI
import Foundation

extension OIDCService {
    public static let authorizationCodeGrant = "authorization_code"
    public static let refreshTokenGrant = "refresh_token"

    // MARK: The token endpoint

    /// The `authorization_code` and `refresh_token` grants for an authenticated client.
    public func token(client: OIDCClient, grant: TokenGrant) throws -> IssuedTokens {
        switch grant {
        case .authorizationCode(let code, let redirectURI, let verifier):
            try exchangeCode(client: client, code: code, redirectURI: redirectURI, verifier: verifier)
        case .refreshToken(let token, let scope):
            try refresh(client: client, token: token, scope: scope)
        }
    }

    /// A code is redeemed once: presented again by its client, it revokes the grant and every
    /// token the first exchange gave (RFC 6749 §4.1.2). PKCE S256 is checked when the request
    /// had a challenge, and a verifier without one is refused (no downgrade). A presentation
    /// refused before the exchange (another client, another redirect URI, a wrong verifier)
    /// spends nothing: the code stays its rightful client's.
    private func exchangeCode(client: OIDCClient, code: String?, redirectURI: String?, verifier: String?) throws -> IssuedTokens {
        guard let code, !code.isEmpty, code.utf8.count <= 256 else { throw OAuthError(.invalidRequest, "code is required") }
        guard let redirectURI else { throw OAuthError(.invalidRequest, "redirect_uri is required") }
        let now = clock.now()
        let digest = digester.digest(code)
        guard let presented = try store.authorizationCode(digest: digest) else { throw OAuthError(.invalidGrant, "unknown authorization code") }
        guard let grant = try store.grant(id: presented.grantID), grant.clientID == client.id else {
            throw OAuthError(.invalidGrant, "the authorization code was issued to another client")
        }
        if presented.redeemedAt != nil { try rejectReuse(of: .authorizationCode, grantID: presented.grantID, now: now) }
        try checkPresentation(presented, redirectURI: redirectURI, verifier: verifier, now: now)
        switch try store.redeemAuthorizationCode(digest: digest, now: now) {
        case nil:
            throw OAuthError(.invalidGrant, "unknown authorization code")
        case .alreadySpent(let spent)?:
            try rejectReuse(of: .authorizationCode, grantID: spent.grantID, now: now)
        case .spent?:
            break
        }
        // The grant is not checked for revocation here: only a second use of this very code can
        // have revoked it, and of two uses at once one must still get its answer (whose access
        // and refresh tokens that revocation has already ended). Its user and device are.
        guard try credentialsStand(grant, now: now) else { throw OAuthError(.invalidGrant, "the grant was revoked") }
        return try issueTokens(grant, client: client, scope: grant.scope, idTokenNonce: grant.nonce, now: now)
    }

    /// What a code's presentation must match before the code is spent.
    private func checkPresentation(_ redeemed: AuthorizationCode, redirectURI: String, verifier: String?, now: Date) throws {
        guard redeemed.expiresAt > now else { throw OAuthError(.invalidGrant, "the authorization code has expired") }
        guard redeemed.redirectURI == redirectURI else { throw OAuthError(.invalidGrant, "redirect_uri differs from the authorization request's") }
        if let challenge = redeemed.codeChallenge {
            guard let verifier, Self.isValidVerifier(verifier) else {
                throw OAuthError(.invalidGrant, "code_verifier (43 to 128 characters of A-Z a-z 0-9 - . _ ~) is required")
            }
            guard Self.equalDigests(digester.digest(verifier), Data(base64URLEncoded: challenge) ?? Data()) else {
                throw OAuthError(.invalidGrant, "code_verifier does not match the code_challenge")
            }
        } else if verifier != nil {
            throw OAuthError(.invalidGrant, "the authorization request had no code_challenge")
        }
    }

    /// Refresh tokens rotate: each is spent by its use and replaced; a spent one presented
    /// again by its client revokes the grant (someone else holds a copy). A presentation refused
    /// before the use (another client, a wider scope) spends nothing.
    private func refresh(client: OIDCClient, token: String?, scope asked: String?) throws -> IssuedTokens {
        guard let token, !token.isEmpty, token.utf8.count <= 256 else {
            throw OAuthError(.invalidRequest, "refresh_token is required")
        }
        let now = clock.now()
        let digest = digester.digest(token)
        guard let presented = try store.refreshToken(digest: digest) else { throw OAuthError(.invalidGrant, "unknown refresh token") }
        guard let grant = try store.grant(id: presented.grantID), grant.clientID == client.id else {
            throw OAuthError(.invalidGrant, "the refresh token was issued to another client")
        }
        if presented.usedAt != nil { try rejectReuse(of: .refreshToken, grantID: presented.grantID, now: now) }
        var scope = grant.scope
        if let asked {
            let scopes = asked.split(separator: " ").map(String.init)
            let granted = Set(grant.scope.split(separator: " ").map(String.init))
            guard scopes.allSatisfy(granted.contains) else { throw OAuthError(.invalidScope, "a refresh cannot widen the scope") }
            scope = scopes.joined(separator: " ")
        }
        switch try store.useRefreshToken(digest: digest, now: now) {
        case nil:
            throw OAuthError(.invalidGrant, "unknown refresh token")
        case .alreadySpent(let spent)?:
            try rejectReuse(of: .refreshToken, grantID: spent.grantID, now: now)
        case .spent?:
            break
        }
        guard presented.expiresAt > now else { throw OAuthError(.invalidGrant, "the refresh token has expired") }
        guard try isLive(grant, now: now) else { throw OAuthError(.invalidGrant, "the grant was revoked") }
        return try issueTokens(grant, client: client, scope: scope, idTokenNonce: nil, now: now)
    }

    /// A single-use token of the grant's.
    private enum SpentToken {
        case authorizationCode, refreshToken

        var reason: String { self == .authorizationCode ? "authorization code reused" : "refresh token reused" }
        var message: String {
            self == .authorizationCode ? "the authorization code was already used; the tokens it gave are revoked"
                : "the refresh token was already used; its grant is revoked"
        }
    }

    /// A spent code or refresh token presented again by its own client (seen before the spend, or
    /// lost to a concurrent one): someone else holds a copy, so the grant and its tokens end.
    private func rejectReuse(of token: SpentToken, grantID: String, now: Date) throws -> Never {
        try revokeGrant(grantID, reason: token.reason, now: now)
        throw OAuthError(.invalidGrant, token.message)
    }

    private func issueTokens(_ grant: OIDCGrant, client: OIDCClient, scope: String, idTokenNonce: String?, now: Date) throws -> IssuedTokens {
        let issuedAt = Int(now.timeIntervalSince1970)
        var idClaims: [String: Any] = [
            "iss": policy.issuer, "sub": grant.userID, "aud": client.id, "azp": client.id, "iat": issuedAt,
            "exp": issuedAt + policy.idTokenLifetime, "auth_time": Int(grant.authTime.timeIntervalSince1970),
            "acr": grant.level.acr, "amr": Assurance.of(grant.level).amr, "sid": grant.id,
        ]
        if let idTokenNonce { idClaims["nonce"] = idTokenNonce }
        let accessClaims: [String: Any] = [
            "iss": policy.issuer, "sub": grant.userID, "aud": policy.issuer, "client_id": client.id, "scope": scope,
            "iat": issuedAt, "exp": issuedAt + policy.accessTokenLifetime, "jti": random.hexID(bytes: 16),
            "auth_time": Int(grant.authTime.timeIntervalSince1970), "acr": grant.level.acr, "sid": grant.id,
        ]
        var idToken = try signer.sign(payload: try Self.json(idClaims), type: "JWT", algorithm: client.idTokenAlgorithm, now: now)
        if grant.encryptIDToken {
            guard let key = client.encryptionJWK else { throw OAuthError(.invalidGrant, "the client's encryption key was removed") }
            idToken = try clientKeys.encrypt(Data(idToken.utf8), contentType: "JWT", to: key)
        }
        let accessToken = try signer.sign(payload: try Self.json(accessClaims), type: "at+jwt", now: now)
        var refreshToken: String?
        if scope.split(separator: " ").contains("offline_access") {
            let token = "rt_" + Data(random.bytes(count: 32)).base64URLEncodedString
            try store.createRefreshToken(RefreshToken(digest: digester.digest(token), grantID: grant.id,
                                                      expiresAt: now.addingTimeInterval(policy.refreshTokenLifetime)))
            refreshToken = token
        }
        return IssuedTokens(accessToken: accessToken, expiresIn: policy.accessTokenLifetime, idToken: idToken, scope: scope,
                            refreshToken: refreshToken)
    }

    func revokeGrant(_ id: String, reason: String, now: Date) throws {
        guard try store.revokeGrant(id: id, at: now), let grant = try store.grant(id: id) else { return }
        try audit?.record(.oidcGrantRevoked, userID: grant.userID, details: ["client_id": grant.clientID, "reason": reason])
    }

    /// RFC 7636 §4.1: 43 to 128 unreserved characters.
    static func isValidVerifier(_ verifier: String) -> Bool {
        (43...128).contains(verifier.utf8.count)
            && verifier.utf8.allSatisfy { $0.isASCIIAlphanumeric || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "~") }
    }

    static func json(_ object: [String: Any]) throws -> Data {
        try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
    }

    // MARK: Access tokens: userinfo, revocation, introspection

    /// The claims of a live access token this server issued: signature, `typ`, issuer,
    /// expiry, and its grant not revoked. Nil when it is none of that.
    func liveAccessToken(_ token: String, now: Date) throws -> AccessTokenClaims? {
        guard token.utf8.count <= 8192, let verified = try? signer.verify(token, now: now), verified.type == "at+jwt",
              let claims = try? JSONDecoder().decode(AccessTokenClaims.self, from: verified.payload),
              claims.iss == policy.issuer, claims.exp > now.timeIntervalSince1970 else { return nil }
        // Every access token names what it came from; one that names nothing is not this server's now.
        guard let sid = claims.sid else { return nil }
        if sid.hasPrefix(CIBARequest.sessionPrefix) {
            guard let request = try store.cibaRequest(digest: String(sid.dropFirst(CIBARequest.sessionPrefix.count))),
                  request.clientID == claims.clientID, try request.approvalStands(in: store, now: now) else { return nil }
        } else {
            guard let grant = try store.grant(id: sid), try isLive(grant, now: now) else { return nil }
        }
        return claims
    }

    /// Whether the grant and what it was made with still stand: not revoked, its user active and
    /// unlocked with the password it signed in under, its device still bound. Read from the
    /// store at every use, so a revocation on any node ends every token at once.
    func isLive(_ grant: OIDCGrant, now: Date) throws -> Bool {
        try grant.revokedAt == nil && credentialsStand(grant, now: now)
    }

    /// Whether the user and the device a grant was made with still stand (see `isLive`).
    func credentialsStand(_ grant: OIDCGrant, now: Date) throws -> Bool {
        guard let user = try store.user(id: grant.userID), user.status == .active, !user.isLocked(at: now),
              let device = try store.device(id: grant.deviceID), device.userID == grant.userID, !device.isRevoked else { return false }
        if let changed = user.passwordChangedAt, changed > grant.authTime { return false }
        return true
    }

    /// The UserInfo endpoint's subject for a bearer access token with the `openid` scope.
    public func userInfo(accessToken: String) throws -> (subject: String, claims: UserClaims) {
        guard let token = try liveAccessToken(accessToken, now: clock.now()) else {
            throw OAuthError(.invalidToken, "the access token is invalid, expired or revoked")
        }
        let scopes = (token.scope ?? "").split(separator: " ").map(String.init)
        guard scopes.contains("openid") else {
            throw OAuthError(.invalidToken, "the access token lacks the openid scope")
        }
        // A CIBA token is a relying party's key's, and any key may ask any user to approve: it
        // reads no claims (the user's own relying party reads them through its API).
        let isCIBA = token.sid?.hasPrefix(CIBARequest.sessionPrefix) ?? false
        guard !isCIBA, scopes.contains(where: UserClaims.scopes.contains) else { return (token.sub, UserClaims()) }
        // Read now, so a change the relying party made since the sign-in is what is released.
        let claims = try store.userClaims(id: token.sub) ?? UserClaims()
        return (token.sub, claims.released(to: scopes))
    }

    /// RFC 7009: revokes the grant of a refresh or access token the client holds. Unknown
    /// tokens and other clients' tokens are ignored (the answer is the same).
    public func revoke(client: OIDCClient, token: String) throws {
        let now = clock.now()
        if token.hasPrefix("rt_") {
            if let refresh = try store.refreshToken(digest: digester.digest(token)), let grant = try store.grant(id: refresh.grantID),
               grant.clientID == client.id {
                try revokeGrant(grant.id, reason: "revoked by the client", now: now)
            }
        } else if let claims = try liveAccessToken(token, now: now), claims.clientID == client.id, let grantID = claims.sid {
            try revokeGrant(grantID, reason: "revoked by the client", now: now)
        }
    }

    /// RFC 7662 for confidential clients, about their own tokens.
    public func introspect(client: OIDCClient, token: String) throws -> TokenIntrospection {
        guard client.kind == .confidential else { throw OAuthError(.invalidClient, "introspection is for confidential clients") }
        let now = clock.now()
        if token.hasPrefix("rt_") {
            guard let refresh = try store.refreshToken(digest: digester.digest(token)), refresh.usedAt == nil, refresh.expiresAt > now,
                  let grant = try store.grant(id: refresh.grantID), grant.clientID == client.id, try isLive(grant, now: now) else {
                return .inactive
            }
            return TokenIntrospection(active: true, kind: .refreshToken, clientID: grant.clientID, subject: grant.userID, scope: grant.scope,
                                      expiresAt: Int(refresh.expiresAt.timeIntervalSince1970), issuer: policy.issuer)
        }
        guard let claims = try liveAccessToken(token, now: now), claims.clientID == client.id else { return .inactive }
        return TokenIntrospection(active: true, kind: .accessToken, clientID: claims.clientID, subject: claims.sub, scope: claims.scope,
                                  expiresAt: Int(claims.exp), issuedAt: claims.iat, issuer: claims.iss, audience: claims.aud, jti: claims.jti,
                                  acr: claims.acr, authTime: claims.authTime)
    }
}

private extension UInt8 {
    var isASCIIAlphanumeric: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
    }
}
