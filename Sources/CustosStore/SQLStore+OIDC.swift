import CustosAPI
import CustosCore
import Foundation

// MARK: - OIDCStore

/// OpenID Connect clients, pending authorizations, grants, codes, refresh tokens and client
/// assertions (migration 12). The same SQL runs on both dialects; every single-use record is
/// spent by one compare-and-set statement, so of two nodes spending it at once one wins.
extension SQLStore: OIDCStore {
    /// The columns each query selects, in the order the readers below read them.
    private static let clientColumns =
        "id, name, kind, secret_digest, redirect_uris, scopes, encryption_jwk, assertion_jwk, created_at, id_token_alg, post_logout_redirect_uris"
    private static let authorizationColumns = "id, request, user_id, device_id, challenge_digest, created_at, expires_at"
    private static let grantColumns = """
        id, client_id, user_id, device_id, scope, nonce, auth_time, level, encrypt_id_token, created_at, revoked_at
        """
    private static let codeColumns = "code_digest, grant_id, redirect_uri, code_challenge, expires_at, redeemed_at"
    private static let refreshTokenColumns = "token_digest, grant_id, expires_at, used_at"

    // MARK: Clients

    /// A client whose id is taken is refused with `StoreError.duplicate`.
    public func saveOIDCClient(_ client: OIDCClient) throws {
        do {
            try database.execute(
                "INSERT INTO oidc_clients (\(Self.clientColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [.text(client.id), .text(client.name), .text(client.kind.rawValue), client.secretDigest.map { .blob($0) } ?? .null,
                 try .json(client.redirectURIs), try .json(client.scopes), .optionalText(client.encryptionJWK),
                 .optionalText(client.assertionJWK), .date(client.createdAt), .text(client.idTokenAlgorithm.rawValue),
                 try .json(client.postLogoutRedirectURIs)])
        } catch StoreError.duplicate {
            throw StoreError.duplicate("an OpenID client with this id already exists")
        }
    }

    public func oidcClient(id: String) throws -> OIDCClient? {
        try database.select("SELECT \(Self.clientColumns) FROM oidc_clients WHERE id = ?", [.text(id)])
            .first.map(Self.oidcClient(from:))
    }

    /// Oldest first; clients created in the same millisecond in id order.
    public func oidcClients() throws -> [OIDCClient] {
        try database.select("SELECT \(Self.clientColumns) FROM oidc_clients ORDER BY created_at, id").map(Self.oidcClient(from:))
    }

    /// Its grants, and their codes and refresh tokens, go by cascade.
    public func deleteOIDCClient(id: String) throws -> Bool {
        try database.execute("DELETE FROM oidc_clients WHERE id = ?", [.text(id)]) > 0
    }

    // MARK: Pending authorizations

    /// One for a user that does not exist is refused with `StoreError.failure` (foreign key).
    public func createPendingAuthorization(_ pending: PendingAuthorization) throws {
        do {
            try database.execute(
                "INSERT INTO oidc_authorizations (\(Self.authorizationColumns)) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [.text(pending.id), try .json(StoredAuthorizationRequest(pending.request)), .text(pending.userID), .text(pending.deviceID),
                 .blob(pending.challengeDigest), .date(pending.createdAt), .date(pending.expiresAt)])
        } catch StoreError.duplicate {
            throw StoreError.duplicate("a pending authorization with this id already exists")
        }
    }

    /// One `DELETE … RETURNING`: of two callers taking the same authorization, one gets it.
    public func takePendingAuthorization(id: String) throws -> PendingAuthorization? {
        try database.query("DELETE FROM oidc_authorizations WHERE id = ? RETURNING \(Self.authorizationColumns)", [.text(id)])
            .first.map(Self.pendingAuthorization(from:))
    }

    // MARK: Grants and codes

    /// One transaction: a duplicate grant id or code digest, or a missing client or user
    /// (`StoreError.failure`, foreign key), stores neither.
    public func createGrant(_ grant: OIDCGrant, code: AuthorizationCode) throws {
        do {
            try database.transaction { connection -> Void in
                try connection.execute(
                    "INSERT INTO oidc_grants (\(Self.grantColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [.text(grant.id), .text(grant.clientID), .text(grant.userID), .text(grant.deviceID), .text(grant.scope),
                     .optionalText(grant.nonce), .date(grant.authTime), .integer(Int64(grant.level.rawValue)),
                     .integer(grant.encryptIDToken ? 1 : 0), .date(grant.createdAt), .optionalDate(grant.revokedAt)])
                try connection.execute(
                    "INSERT INTO oidc_codes (\(Self.codeColumns)) VALUES (?, ?, ?, ?, ?, ?)",
                    [.blob(code.digest), .text(code.grantID), .text(code.redirectURI), .optionalText(code.codeChallenge),
                     .date(code.expiresAt), .optionalDate(code.redeemedAt)])
            }
        } catch StoreError.duplicate {
            // The database's message would name the key; the digest stays out of logs.
            throw StoreError.duplicate("a grant with this id or a code with this digest already exists")
        }
    }

    public func grant(id: String) throws -> OIDCGrant? {
        try database.select("SELECT \(Self.grantColumns) FROM oidc_grants WHERE id = ?", [.text(id)]).first.map(Self.oidcGrant(from:))
    }

    /// Sets `revoked_at` only if not yet set. Its codes and refresh tokens stay, so that a
    /// replay of one is still recognised.
    @discardableResult
    public func revokeGrant(id: String, at: Date) throws -> Bool {
        try database.execute("UPDATE oidc_grants SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", [.date(at), .text(id)]) > 0
    }

    public func revokeGrants(userID: String, deviceID: String?, at: Date) throws -> Int {
        if let deviceID {
            return try database.execute("UPDATE oidc_grants SET revoked_at = ? WHERE user_id = ? AND device_id = ? AND revoked_at IS NULL",
                                        [.date(at), .text(userID), .text(deviceID)])
        }
        return try database.transaction { connection in
            try connection.execute(
                """
                UPDATE ciba_requests SET revoked_at = ?
                WHERE revoked_at IS NULL AND notification_id IN (SELECT id FROM notifications WHERE user_id = ?)
                """, [.date(at), .text(userID)])
            return try connection.execute("UPDATE oidc_grants SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL",
                                          [.date(at), .text(userID)])
        }
    }

    public func redeemAuthorizationCode(digest: Data, now: Date) throws -> SpendOutcome<AuthorizationCode>? {
        try database.transaction { connection -> SpendOutcome<AuthorizationCode>? in
            if let row = try connection.queryFirst(
                "UPDATE oidc_codes SET redeemed_at = ? WHERE code_digest = ? AND redeemed_at IS NULL RETURNING \(Self.codeColumns)",
                [.date(now), .blob(digest)]) {
                return .spent(try Self.authorizationCode(from: row))
            }
            guard let row = try connection.queryFirst("SELECT \(Self.codeColumns) FROM oidc_codes WHERE code_digest = ?", [.blob(digest)]) else {
                return nil
            }
            return .alreadySpent(try Self.authorizationCode(from: row))
        }
    }

    // MARK: Refresh tokens

    /// One for a grant that does not exist is refused with `StoreError.failure` (foreign key).
    public func createRefreshToken(_ token: RefreshToken) throws {
        do {
            try database.execute(
                "INSERT INTO oidc_refresh_tokens (\(Self.refreshTokenColumns)) VALUES (?, ?, ?, ?)",
                [.blob(token.digest), .text(token.grantID), .date(token.expiresAt), .optionalDate(token.usedAt)])
        } catch StoreError.duplicate {
            throw StoreError.duplicate("a refresh token with this digest already exists")
        }
    }

    public func authorizationCode(digest: Data) throws -> AuthorizationCode? {
        try database.select("SELECT \(Self.codeColumns) FROM oidc_codes WHERE code_digest = ?", [.blob(digest)])
            .first.map(Self.authorizationCode(from:))
    }

    public func refreshToken(digest: Data) throws -> RefreshToken? {
        try database.select("SELECT \(Self.refreshTokenColumns) FROM oidc_refresh_tokens WHERE token_digest = ?", [.blob(digest)])
            .first.map(Self.refreshTokenRecord(from:))
    }

    public func useRefreshToken(digest: Data, now: Date) throws -> SpendOutcome<RefreshToken>? {
        try database.transaction { connection -> SpendOutcome<RefreshToken>? in
            if let row = try connection.queryFirst(
                "UPDATE oidc_refresh_tokens SET used_at = ? WHERE token_digest = ? AND used_at IS NULL RETURNING \(Self.refreshTokenColumns)",
                [.date(now), .blob(digest)]) {
                return .spent(try Self.refreshTokenRecord(from: row))
            }
            guard let row = try connection.queryFirst(
                "SELECT \(Self.refreshTokenColumns) FROM oidc_refresh_tokens WHERE token_digest = ?", [.blob(digest)]) else {
                return nil
            }
            return .alreadySpent(try Self.refreshTokenRecord(from: row))
        }
    }

    // MARK: Client assertions, sign counters, retention

    /// `ON CONFLICT DO NOTHING`: a `jti` seen before changes no row, on either dialect, and
    /// leaves no failed statement behind in an enclosing transaction.
    public func recordClientAssertion(digest: Data, expiresAt: Date) throws -> Bool {
        try database.execute(
            "INSERT INTO oidc_client_assertions (jti_digest, expires_at) VALUES (?, ?) ON CONFLICT (jti_digest) DO NOTHING",
            [.blob(digest), .date(expiresAt)]) == 1
    }

    /// A compare-and-set on `devices.sign_count`: a count of 0 is accepted only while the stored
    /// one is 0 too, any other only when it is higher than the stored one.
    public func advanceSignCount(deviceID: String, to count: UInt32) throws -> Bool {
        let value = SQLValue.integer(Int64(count))
        if count == 0 {
            return try database.execute("UPDATE devices SET sign_count = ? WHERE id = ? AND sign_count = 0", [value, .text(deviceID)]) > 0
        }
        return try database.execute("UPDATE devices SET sign_count = ? WHERE id = ? AND sign_count < ?", [value, .text(deviceID), value]) > 0
    }

    /// One transaction. Counts the rows deleted directly: codes that go with their grant by
    /// cascade are not counted.
    ///
    /// A grant goes with its last code or refresh token: every grant is made with a code, so
    /// the grants to look at are those whose code or refresh tokens end now, found by the
    /// tokens' expiry index rather than by reading every grant (most of them live for weeks).
    public func purgeOIDC(before cutoff: Date) throws -> Int {
        let cutoff = SQLValue.date(cutoff)
        return try database.transaction { connection -> Int in
            let ending = try connection.query(
                "SELECT grant_id FROM oidc_codes WHERE expires_at < ? UNION SELECT grant_id FROM oidc_refresh_tokens WHERE expires_at < ?",
                [cutoff, cutoff]).map { try $0.string(0) }
            var purged = 0
            for table in ["oidc_authorizations", "oidc_codes", "oidc_refresh_tokens", "oidc_client_assertions"] {
                purged += try connection.execute("DELETE FROM \(table) WHERE expires_at < ?", [cutoff])
            }
            for start in stride(from: 0, to: ending.count, by: 500) {
                let ids = ending[start..<min(ending.count, start + 500)]
                purged += try connection.execute(
                    """
                    DELETE FROM oidc_grants WHERE id IN (\(Array(repeating: "?", count: ids.count).joined(separator: ", ")))
                    AND NOT EXISTS (SELECT 1 FROM oidc_refresh_tokens WHERE oidc_refresh_tokens.grant_id = oidc_grants.id)
                    """,
                    ids.map { .text($0) })
            }
            return purged
        }
    }

    // MARK: Rows

    private static func oidcClient(from row: SQLRow) throws -> OIDCClient {
        OIDCClient(
            id: try row.string(0), name: try row.string(1), kind: try row.enumValue(OIDCClient.Kind.self, 2, column: "oidc_clients.kind"),
            secretDigest: row.isNull(3) ? nil : try row.data(3),
            redirectURIs: try oidcJSON([String].self, row, 4, column: "oidc_clients.redirect_uris"),
            scopes: try oidcJSON([String].self, row, 5, column: "oidc_clients.scopes"),
            encryptionJWK: try row.optionalString(6), assertionJWK: try row.optionalString(7),
            idTokenAlgorithm: SigningAlgorithm(rawValue: try row.string(9)) ?? .es256,
            postLogoutRedirectURIs: try oidcJSON([String].self, row, 10, column: "oidc_clients.post_logout_redirect_uris"), createdAt: try row.date(8))
    }

    private static func pendingAuthorization(from row: SQLRow) throws -> PendingAuthorization {
        PendingAuthorization(
            id: try row.string(0), request: try oidcJSON(StoredAuthorizationRequest.self, row, 1, column: "oidc_authorizations.request").request,
            userID: try row.string(2), deviceID: try row.string(3), challengeDigest: try row.data(4), createdAt: try row.date(5),
            expiresAt: try row.date(6))
    }

    private static func oidcGrant(from row: SQLRow) throws -> OIDCGrant {
        OIDCGrant(
            id: try row.string(0), clientID: try row.string(1), userID: try row.string(2), deviceID: try row.string(3),
            scope: try row.string(4), nonce: try row.optionalString(5), authTime: try row.date(6), level: AuthLevel(rawValue: try row.int(7)),
            encryptIDToken: try row.bool(8), createdAt: try row.date(9), revokedAt: try row.optionalDate(10))
    }

    private static func authorizationCode(from row: SQLRow) throws -> AuthorizationCode {
        AuthorizationCode(
            digest: try row.data(0), grantID: try row.string(1), redirectURI: try row.string(2), codeChallenge: try row.optionalString(3),
            expiresAt: try row.date(4), redeemedAt: try row.optionalDate(5))
    }

    private static func refreshTokenRecord(from row: SQLRow) throws -> RefreshToken {
        RefreshToken(digest: try row.data(0), grantID: try row.string(1), expiresAt: try row.date(2), usedAt: try row.optionalDate(3))
    }

    /// A JSON column; unreadable JSON is `StoreError.failure` naming `column`.
    private static func oidcJSON<T: Decodable>(_ type: T.Type, _ row: SQLRow, _ index: Int, column: String) throws -> T {
        let text = try row.string(index)
        do {
            return try JSONDecoder().decode(type, from: Data(text.utf8))
        } catch {
            throw StoreError.failure("\(column): unreadable JSON")
        }
    }
}

/// `AuthorizationRequest` as the JSON object of `oidc_authorizations.request` (the core type
/// is not `Codable`; the stored form is this file's to keep stable).
private struct StoredAuthorizationRequest: Codable {
    var clientID: String
    var redirectURI: String
    var scope: String
    var state: String?
    var nonce: String?
    var codeChallenge: String?
    var prompt: [String]
    var maxAge: Int?
    var acrValues: [String]
    var encryptIDToken: Bool
    var loginHint: String?
    /// Absent in rows written before form_post: query.
    var responseMode: String?

    enum CodingKeys: String, CodingKey {
        case clientID = "client_id"
        case redirectURI = "redirect_uri"
        case scope
        case state
        case nonce
        case codeChallenge = "code_challenge"
        case prompt
        case maxAge = "max_age"
        case acrValues = "acr_values"
        case encryptIDToken = "encrypt_id_token"
        case loginHint = "login_hint"
        case responseMode = "response_mode"
    }

    init(_ request: AuthorizationRequest) {
        clientID = request.clientID
        redirectURI = request.redirectURI
        scope = request.scope
        state = request.state
        nonce = request.nonce
        codeChallenge = request.codeChallenge
        prompt = request.prompt
        maxAge = request.maxAge
        acrValues = request.acrValues
        encryptIDToken = request.encryptIDToken
        loginHint = request.loginHint
        responseMode = request.responseMode.rawValue
    }

    var request: AuthorizationRequest {
        AuthorizationRequest(clientID: clientID, redirectURI: redirectURI, scope: scope, state: state, nonce: nonce, codeChallenge: codeChallenge,
                             prompt: prompt, maxAge: maxAge, acrValues: acrValues, encryptIDToken: encryptIDToken, loginHint: loginHint,
                             responseMode: responseMode.flatMap(AuthorizationRequest.ResponseMode.init(rawValue:)) ?? .query)
    }
}
