import CustosCore
import CustosCrypto
import Foundation
import Synchronization

/// Core's `TokenSigner` over P-256 keys (ES256: everything it signs) and RSA keys (RS256: the
/// ID tokens of clients that ask for it) kept in a `SigningKeyStore`: private keys sealed with
/// AES-256-GCM under a key derived from the master key (`custos/signing`, the key id as
/// associated data), public keys served as one JWKS. The first key of each algorithm is made
/// on first use; keys are read from the store at most every `refreshInterval` seconds, so a
/// rotation on one node reaches the others within that time: `KeyPublication.minimum` says
/// how long a rotated key must be published before it signs. During a master-key rotation a key
/// the primary master key does not open is opened under the previous one (`MasterKeys`); new
/// keys are always sealed under the primary.
public final class SigningKeyRing: TokenSigner {
    /// The HKDF purpose of the key that seals private keys.
    public static let sealingPurpose = "custos/signing"
    /// The default `refreshInterval`.
    public static let defaultRefreshInterval = KeyPublication.ringRefresh

    enum Key {
        case ec(P256.PrivateKey)
        case rsa(RSASigningKey)

        var algorithm: SigningAlgorithm {
            switch self {
            case .ec: .es256
            case .rsa: .rs256
            }
        }
    }
    /// The kid prefix of each algorithm's keys (the store retires keys per prefix).
    static func prefix(_ algorithm: SigningAlgorithm) -> String {
        switch algorithm {
        case .es256: "sk_"
        case .rs256: "rk_"
        }
    }

    private let store: any SigningKeyStore
    private let masterKeys: MasterKeys
    private let random: any RandomSource
    private let refreshInterval: TimeInterval
    private struct Loaded {
        var keys: [(stored: StoredSigningKey, key: Key)] = []
        var loadedAt: Date = .distantPast
    }
    private let loaded = Mutex(Loaded())

    public convenience init(store: any SigningKeyStore, masterKey: MasterKey, random: any RandomSource = SecureRandom(),
                            refreshInterval: TimeInterval = defaultRefreshInterval) {
        self.init(store: store, masterKeys: MasterKeys(primary: masterKey), random: random, refreshInterval: refreshInterval)
    }

    public init(store: any SigningKeyStore, masterKeys: MasterKeys, random: any RandomSource = SecureRandom(),
                refreshInterval: TimeInterval = defaultRefreshInterval) {
        self.store = store
        self.masterKeys = masterKeys
        self.random = random
        self.refreshInterval = refreshInterval
    }

    public func sign(payload: Data, type: String, algorithm: SigningAlgorithm, now: Date) throws -> String {
        let keys = try keysMakingTheFirst(now: now).filter { $0.key.algorithm == algorithm }
        // The newest key that signs by now; a key published for the future waits its turn.
        guard let signing = keys.last(where: { $0.stored.activatesAt <= now }) ?? keys.first else {
            throw CryptoError.invalidPrivateKey("the key ring has no \(algorithm.rawValue) key")
        }
        switch signing.key {
        case .ec(let key): return try JWS.sign(payload: payload, key: key, kid: signing.stored.kid, typ: type)
        case .rsa(let key): return try JWS.sign(payload: payload, rsaKey: key, kid: signing.stored.kid, typ: type)
        }
    }

    public func publicKeySet(now: Date) throws -> Data {
        let jwks = try keysMakingTheFirst(now: now).map { try JSONDecoder().decode(JWK.self, from: Data($0.stored.publicJWK.utf8)) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(JWKSet(keys: jwks))
    }

    @discardableResult
    public func rotate(now: Date, publishFor: TimeInterval, retainFor: TimeInterval) throws -> String {
        let kid = try add(.es256, now: now, publishFor: publishFor, retainFor: retainFor)
        try add(.rs256, now: now, publishFor: publishFor, retainFor: retainFor)
        return kid
    }

    /// Adds one key of `algorithm`; returns its kid.
    @discardableResult
    private func add(_ algorithm: SigningAlgorithm, now: Date, publishFor: TimeInterval, retainFor: TimeInterval) throws -> String {
        let kid = Self.prefix(algorithm) + random.hexID(bytes: 8)
        let sealed: Data
        let publicJWK: JWK
        switch algorithm {
        case .es256:
            let key = try P256.PrivateKey.generate()
            publicJWK = JWK(publicKey: key.publicKey, kid: kid)
            sealed = try seal(try key.rawRepresentation, kid: kid)
        case .rs256:
            let key = try RSASigningKey.generate()
            publicJWK = try key.publicJWK(kid: kid)
            var der = try key.derRepresentation
            defer { OpenSSL.cleanse(&der) }
            sealed = try seal(der, kid: kid)
        }
        let stored = StoredSigningKey(kid: kid, sealedPrivateKey: sealed, publicJWK: String(decoding: try JSONEncoder().encode(publicJWK), as: UTF8.self),
                                      createdAt: now, activatesAt: now.addingTimeInterval(publishFor))
        try store.addSigningKey(stored, retireOthersAt: now.addingTimeInterval(publishFor + retainFor))
        loaded.withLock { $0.loadedAt = .distantPast }
        return kid
    }

    /// How long the first key keeps any other first key published: two nodes that both find
    /// the ring empty each add one, and neither may unpublish what the other already signed.
    static let firstKeyRetention: TimeInterval = 24 * 3600

    /// The unretired keys; on a ring without a key of some algorithm (a new database, or one
    /// from before RS256) that key is made now, by whichever of signing or publishing the set
    /// comes first, so it is published as soon as anything can be verified with it.
    func keysMakingTheFirst(now: Date) throws -> [(stored: StoredSigningKey, key: Key)] {
        let keys = try current(now: now)
        let missing = SigningAlgorithm.allCases.filter { algorithm in !keys.contains { $0.key.algorithm == algorithm } }
        guard !missing.isEmpty else { return keys }
        for algorithm in missing { try add(algorithm, now: now, publishFor: 0, retainFor: Self.firstKeyRetention) }
        return try current(now: now, reload: true)
    }

    /// The unretired keys, oldest first, from the cache while it is fresh.
    func current(now: Date, reload: Bool = false) throws -> [(stored: StoredSigningKey, key: Key)] {
        let cached = loaded.withLock { $0 }
        if !reload, now.timeIntervalSince(cached.loadedAt) < refreshInterval, now >= cached.loadedAt {
            return cached.keys.filter { $0.stored.retiresAt.map { $0 > now } ?? true }
        }
        let keys = try store.signingKeys(now: now).map { ($0, try open($0)) }
        loaded.withLock { $0 = Loaded(keys: keys, loadedAt: now) }
        return keys
    }

    private func seal(_ secret: [UInt8], kid: String) throws -> Data {
        try masterKeys.seal(Data(secret), purpose: Self.sealingPurpose, associatedData: Data(kid.utf8))
    }

    private func open(_ stored: StoredSigningKey) throws -> Key {
        let raw = try masterKeys.open(stored.sealedPrivateKey, purpose: Self.sealingPurpose, associatedData: Data(stored.kid.utf8))
        if stored.kid.hasPrefix(Self.prefix(.rs256)) { return .rsa(try RSASigningKey(derRepresentation: [UInt8](raw))) }
        return .ec(try P256.PrivateKey(rawRepresentation: [UInt8](raw)))
    }
}

extension SigningKeyRing {
    public func verify(_ compact: String, now: Date) throws -> VerifiedToken {
        let header = try JWS.unverifiedHeader(compact)
        guard let kid = header.kid else { throw CryptoError.malformedJWS("no kid") }
        var entry = try keysMakingTheFirst(now: now).first { $0.stored.kid == kid }
        // A key another node just added: read the store again, but at most once a second, so
        // tokens with made-up key ids cannot turn every request into a database read.
        if entry == nil, now.timeIntervalSince(loaded.withLock { $0.loadedAt }) >= 1 {
            entry = try current(now: now, reload: true).first { $0.stored.kid == kid }
        }
        guard let entry else { throw CryptoError.signatureVerificationFailed }
        let verified = switch entry.key {
        case .ec(let key): try JWS.verify(compact, key: key.publicKey)
        case .rsa(let key): try JWS.verify(compact, rsaKey: key)
        }
        return VerifiedToken(type: verified.header.typ, payload: verified.payload)
    }
}
