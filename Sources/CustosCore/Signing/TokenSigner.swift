import Foundation

/// Signs what the server vouches for (IDV verdicts today; step-up results and OpenID
/// Connect tokens reuse it) as compact JWS with ES256, under the active key of one key ring
/// whose public keys anyone can fetch (`/.well-known/jwks.json`) to verify offline.
public protocol TokenSigner: Sendable {
    /// `payload` (JSON claims) signed with `algorithm` under that family's key active at
    /// `now`, with its `kid` and `typ` in the header.
    func sign(payload: Data, type: String, algorithm: SigningAlgorithm, now: Date) throws -> String
    /// The JSON Web Key Set of every key a verifier may meet at `now`: the active one, keys
    /// published before they sign, and retired keys until what they signed has expired.
    func publicKeySet(now: Date) throws -> Data
    /// Adds a new key of each algorithm that signs from `now + publishFor` (published at once,
    /// so verifiers fetch it before they meet it); older keys stay published for `retainFor`
    /// after that, then leave the set. Returns the new ES256 key id.
    @discardableResult
    func rotate(now: Date, publishFor: TimeInterval, retainFor: TimeInterval) throws -> String
    /// Verifies a token this key ring signed (under a key published at `now`); throws when the
    /// signature, the algorithm or the key id is wrong. Claims are the caller's to check.
    func verify(_ compact: String, now: Date) throws -> VerifiedToken
}

/// The JWS algorithms the key ring signs with: ES256 for everything, RS256 for the ID tokens of
/// clients that ask for it (OpenID Connect Discovery §3 requires a provider to offer it).
public enum SigningAlgorithm: String, Sendable, CaseIterable {
    case es256 = "ES256"
    case rs256 = "RS256"
}

extension TokenSigner {
    /// Signed with ES256.
    public func sign(payload: Data, type: String, now: Date) throws -> String {
        try sign(payload: payload, type: type, algorithm: .es256, now: now)
    }
}

/// How long a new signing key waits between being published and signing, so that a verifier
/// never meets a token whose key its JWKS lacks.
public enum KeyPublication {
    /// How long verifiers may cache `/.well-known/jwks.json` (its `Cache-Control: max-age`).
    public static let jwksMaxAge: TimeInterval = 60
    /// How often each node rereads the key ring from the store.
    public static let ringRefresh: TimeInterval = 30
    /// The least time between publishing a key and signing with it: every node rereads the
    /// ring, then every verifier's cached JWKS expires, with half a minute to spare for clocks
    /// and slow fetches.
    public static let minimum: TimeInterval = ringRefresh + jwksMaxAge + 30
}

/// A JWS whose signature verified: its `typ` and its payload.
public struct VerifiedToken: Sendable, Equatable {
    public var type: String?
    public var payload: Data

    public init(type: String?, payload: Data) {
        self.type = type
        self.payload = payload
    }
}

/// What the server does with the public keys clients register: encrypt ID tokens to them and
/// verify the clients' `private_key_jwt` assertions with them.
public protocol ClientKeyOperations: Sendable {
    /// Checks that `jwkJSON` is a public EC P-256 key (no private part) and returns it as
    /// canonical JSON; throws `OIDCError.invalid` otherwise.
    func normalizePublicKey(_ jwkJSON: String, field: String) throws -> String
    /// A compact JWE (`ECDH-ES+A256KW`, `A256GCM`) of `payload` to the key.
    func encrypt(_ payload: Data, contentType: String, to jwkJSON: String) throws -> String
    /// Verifies an ES256 compact JWS under the key.
    func verify(_ compact: String, with jwkJSON: String) throws -> VerifiedToken
}

/// One signing key as stored: the private key sealed under the master key (never in the
/// clear), the public key as a JWK.
public struct StoredSigningKey: Sendable, Equatable {
    public var kid: String
    public var sealedPrivateKey: Data
    /// The public JWK, JSON.
    public var publicJWK: String
    public var createdAt: Date
    /// Signs from this moment (it is published from `createdAt`).
    public var activatesAt: Date
    /// Leaves the published set at this moment (nil: while it is the newest).
    public var retiresAt: Date?

    public init(kid: String, sealedPrivateKey: Data, publicJWK: String, createdAt: Date, activatesAt: Date, retiresAt: Date? = nil) {
        self.kid = kid
        self.sealedPrivateKey = sealedPrivateKey
        self.publicJWK = publicJWK
        self.createdAt = createdAt
        self.activatesAt = activatesAt
        self.retiresAt = retiresAt
    }
}

/// The signing keys of the key ring.
public protocol SigningKeyStore: Sendable {
    /// Every key not yet retired at `now`, in the order they sign (by activation).
    func signingKeys(now: Date) throws -> [StoredSigningKey]
    /// Adds `key` and sets the retirement of every other unretired key of its family (the
    /// same first three characters of the kid: `sk_` ES256, `rk_` RS256) to `retireOthersAt`,
    /// in one transaction.
    func addSigningKey(_ key: StoredSigningKey, retireOthersAt: Date) throws
}
