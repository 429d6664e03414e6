import CustosCore
import Foundation
import Synchronization

/// Core's `TokenSigner` over P-256 keys kept in a `SigningKeyStore`: private keys sealed with
/// AES-256-GCM under a key derived from the master key (`custos/signing`, the key id as
/// associated data), public keys served as a JWKS. The first key is made on first use; keys
/// are read from the store at most every `refreshInterval` seconds, so a rotation on one
/// node reaches the others within that time (publish keys that long before they sign).
/// During a master-key rotation a key the primary master key does not open is opened under
/// the previous one (`MasterKeys`); new keys are always sealed under the primary.
public final class SigningKeyRing: TokenSigner {
    /// The HKDF purpose of the key that seals private keys.
    public static let sealingPurpose = "custos/signing"

    private let store: any SigningKeyStore
    private let masterKeys: MasterKeys
    private let random: any RandomSource
    private let refreshInterval: TimeInterval
    private struct Loaded {
        var keys: [(stored: StoredSigningKey, key: P256.PrivateKey)] = []
        var loadedAt: Date = .distantPast
    }
    private let loaded = Mutex(Loaded())

    public convenience init(store: any SigningKeyStore, masterKey: MasterKey, random: any RandomSource = SecureRandom(),
                            refreshInterval: TimeInterval = 30) {
        self.init(store: store, masterKeys: MasterKeys(primary: masterKey), random: random, refreshInterval: refreshInterval)
    }

    public init(store: any SigningKeyStore, masterKeys: MasterKeys, random: any RandomSource = SecureRandom(), refreshInterval: TimeInterval = 30) {
        self.store = store
        self.masterKeys = masterKeys
        self.random = random
        self.refreshInterval = refreshInterval
    }

    public func sign(payload: Data, type: String, now: Date) throws -> String {
        let keys = try keysMakingTheFirst(now: now)
        // The newest key that signs by now; a key published for the future waits its turn.
        guard let signing = keys.last(where: { $0.stored.activatesAt <= now }) ?? keys.first else {
            throw CryptoError.invalidPrivateKey("the key ring has no signing key")
        }
        return try JWS.sign(payload: payload, key: signing.key, kid: signing.stored.kid, typ: type)
    }

    public func publicKeySet(now: Date) throws -> Data {
        let jwks = try keysMakingTheFirst(now: now).map { try JSONDecoder().decode(JWK.self, from: Data($0.stored.publicJWK.utf8)) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(JWKSet(keys: jwks))
    }

    @discardableResult
    public func rotate(now: Date, publishFor: TimeInterval, retainFor: TimeInterval) throws -> String {
        let key = try P256.PrivateKey.generate()
        let kid = "sk_" + random.hexID(bytes: 8)
        let publicJWK = try JSONEncoder().encode(JWK(publicKey: key.publicKey, kid: kid))
        let stored = StoredSigningKey(kid: kid, sealedPrivateKey: try seal(key, kid: kid), publicJWK: String(decoding: publicJWK, as: UTF8.self),
                                      createdAt: now, activatesAt: now.addingTimeInterval(publishFor))
        try store.addSigningKey(stored, retireOthersAt: now.addingTimeInterval(publishFor + retainFor))
        loaded.withLock { $0.loadedAt = .distantPast }
        return kid
    }

    /// How long the first key keeps any other first key published: two nodes that both find
    /// the ring empty each add one, and neither may unpublish what the other already signed.
    static let firstKeyRetention: TimeInterval = 24 * 3600

    /// The unretired keys; on an empty ring (a new database) the first key is made now, by
    /// whichever of signing or publishing the set comes first, so it is published as soon as
    /// anything can be verified with it.
    func keysMakingTheFirst(now: Date) throws -> [(stored: StoredSigningKey, key: P256.PrivateKey)] {
        let keys = try current(now: now)
        guard keys.isEmpty else { return keys }
        try rotate(now: now, publishFor: 0, retainFor: Self.firstKeyRetention)
        return try current(now: now, reload: true)
    }

    /// The unretired keys, oldest first, from the cache while it is fresh.
    func current(now: Date, reload: Bool = false) throws -> [(stored: StoredSigningKey, key: P256.PrivateKey)] {
        let cached = loaded.withLock { $0 }
        if !reload, now.timeIntervalSince(cached.loadedAt) < refreshInterval, now >= cached.loadedAt {
            return cached.keys.filter { $0.stored.retiresAt.map { $0 > now } ?? true }
        }
        let keys = try store.signingKeys(now: now).map { ($0, try open($0)) }
        loaded.withLock { $0 = Loaded(keys: keys, loadedAt: now) }
        return keys
    }

    private func seal(_ key: P256.PrivateKey, kid: String) throws -> Data {
        try masterKeys.seal(Data(key.rawRepresentation), purpose: Self.sealingPurpose, associatedData: Data(kid.utf8))
    }

    private func open(_ stored: StoredSigningKey) throws -> P256.PrivateKey {
        let raw = try masterKeys.open(stored.sealedPrivateKey, purpose: Self.sealingPurpose, associatedData: Data(stored.kid.utf8))
        return try P256.PrivateKey(rawRepresentation: [UInt8](raw))
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
        let verified = try JWS.verify(compact, key: entry.key.publicKey)
        return VerifiedToken(type: verified.header.typ, payload: verified.payload)
    }
}
