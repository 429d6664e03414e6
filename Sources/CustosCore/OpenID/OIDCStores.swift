import CustosAPI
import Foundation

/// A validated authorization request waiting for the bound device's WebAuthn assertion.
public struct PendingAuthorization: Equatable, Sendable {
    public var id: String
    public var request: AuthorizationRequest
    public var userID: String
    public var deviceID: String
    /// SHA-256 of the challenge the device signs; single use with the request.
    public var challengeDigest: Data
    public var createdAt: Date
    public var expiresAt: Date

    public init(id: String, request: AuthorizationRequest, userID: String, deviceID: String, challengeDigest: Data, createdAt: Date,
                expiresAt: Date) {
        self.id = id
        self.request = request
        self.userID = userID
        self.deviceID = deviceID
        self.challengeDigest = challengeDigest
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// A grant: what one sign-in allowed a client, and what every token issued from it refers to.
/// Revoking it (a reused code or refresh token, RFC 7009 revocation) ends all of them.
public struct OIDCGrant: Equatable, Sendable {
    public var id: String
    public var clientID: String
    public var userID: String
    public var deviceID: String
    public var scope: String
    public var nonce: String?
    public var authTime: Date
    public var level: AuthLevel
    /// Whether the client asked for its ID tokens encrypted to its key.
    public var encryptIDToken: Bool
    public var createdAt: Date
    public var revokedAt: Date?

    public init(id: String, clientID: String, userID: String, deviceID: String, scope: String, nonce: String?, authTime: Date,
                level: AuthLevel, encryptIDToken: Bool, createdAt: Date, revokedAt: Date? = nil) {
        self.id = id
        self.clientID = clientID
        self.userID = userID
        self.deviceID = deviceID
        self.scope = scope
        self.nonce = nonce
        self.authTime = authTime
        self.level = level
        self.encryptIDToken = encryptIDToken
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }
}

/// An authorization code (only its digest is stored), redeemable once for its grant's tokens.
public struct AuthorizationCode: Equatable, Sendable {
    public var digest: Data
    public var grantID: String
    public var redirectURI: String
    /// The PKCE S256 challenge; nil for a confidential client that sent none.
    public var codeChallenge: String?
    public var expiresAt: Date
    public var redeemedAt: Date?

    public init(digest: Data, grantID: String, redirectURI: String, codeChallenge: String?, expiresAt: Date, redeemedAt: Date? = nil) {
        self.digest = digest
        self.grantID = grantID
        self.redirectURI = redirectURI
        self.codeChallenge = codeChallenge
        self.expiresAt = expiresAt
        self.redeemedAt = redeemedAt
    }
}

/// A refresh token (only its digest is stored). Each use rotates it: the token is spent and
/// a new one issued; a spent token presented again revokes the grant (RFC 9700 §4.14.2).
public struct RefreshToken: Equatable, Sendable {
    public var digest: Data
    public var grantID: String
    public var expiresAt: Date
    public var usedAt: Date?

    public init(digest: Data, grantID: String, expiresAt: Date, usedAt: Date? = nil) {
        self.digest = digest
        self.grantID = grantID
        self.expiresAt = expiresAt
        self.usedAt = usedAt
    }
}

/// Whether a single-use record was spent by this call or an earlier one.
public enum SpendOutcome<Record: Sendable>: Sendable {
    /// This call spent it.
    case spent(Record)
    /// It was spent before (a replay).
    case alreadySpent(Record)
}

/// Ends grants wholesale: what a revocation of the user or of one device does to every OIDC
/// grant made with them (and so to their refresh and access tokens) and, for the user, to the
/// tokens of every CIBA request the user answered.
public protocol GrantRevocationStore: Sendable {
    /// Revokes the user's live grants and CIBA tokens, or only the grants made with `deviceID`;
    /// returns how many OIDC grants.
    @discardableResult
    func revokeGrants(userID: String, deviceID: String?, at: Date) throws -> Int
}

public protocol OIDCStore: GrantRevocationStore {
    func saveOIDCClient(_ client: OIDCClient) throws
    func oidcClient(id: String) throws -> OIDCClient?
    func oidcClients() throws -> [OIDCClient]
    /// Deletes the client with its grants, codes and refresh tokens; false when there was none.
    func deleteOIDCClient(id: String) throws -> Bool

    func createPendingAuthorization(_ pending: PendingAuthorization) throws
    /// Removes and returns the pending authorization (one attempt per challenge).
    func takePendingAuthorization(id: String) throws -> PendingAuthorization?

    /// Stores the grant and its code together.
    func createGrant(_ grant: OIDCGrant, code: AuthorizationCode) throws
    func grant(id: String) throws -> OIDCGrant?
    /// Revokes the grant; false when it was unknown or already revoked.
    @discardableResult
    func revokeGrant(id: String, at: Date) throws -> Bool

    /// The code with this digest, spent or not (to check a presentation before spending it).
    func authorizationCode(digest: Data) throws -> AuthorizationCode?
    /// Marks the code redeemed at `now` unless it already was. Nil for an unknown code.
    func redeemAuthorizationCode(digest: Data, now: Date) throws -> SpendOutcome<AuthorizationCode>?

    func createRefreshToken(_ token: RefreshToken) throws
    func refreshToken(digest: Data) throws -> RefreshToken?
    /// Marks the refresh token used at `now` unless it already was. Nil for an unknown token.
    func useRefreshToken(digest: Data, now: Date) throws -> SpendOutcome<RefreshToken>?

    /// Records a `private_key_jwt` assertion's `jti` until `expiresAt`; false when it was seen.
    func recordClientAssertion(digest: Data, expiresAt: Date) throws -> Bool

    /// Raises the device's WebAuthn signature counter to `count` if it is higher than the
    /// stored one (or both are 0: an authenticator without a counter); false otherwise.
    func advanceSignCount(deviceID: String, to count: UInt32) throws -> Bool

    /// Deletes pending authorizations, codes, refresh tokens and assertion records that ended
    /// before `cutoff`, and grants with no live refresh token created before it; returns how many.
    func purgeOIDC(before cutoff: Date) throws -> Int
}
