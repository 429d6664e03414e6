import CustosAPI
import CustosCore
import Foundation

/// A digest that is the input behind a marker: distinct secrets give distinct digests, which is
/// all stores and services compare, and no SHA-256 runs. `key` stands for another master key.
public struct FakeDigester: SecretDigester {
    public var key: String

    public init(key: String = "") {
        self.key = key
    }

    public func digest(_ secret: String) -> Data { digest(bytes: Data(secret.utf8)) }

    public func digest(bytes: Data) -> Data { Data("digest\(key):".utf8) + bytes }
}

/// "Hashes" a password by tagging it, so a test's logins cost no Argon2id.
public struct FakePasswordHasher: PasswordHasher {
    static let prefix = "fake-hash$"

    public init() {}

    public func hash(_ password: String) throws -> String { Self.prefix + password }

    /// Throws for an encoded hash it did not make, as the real one throws for a malformed one.
    public func verify(_ password: String, encoded: String) throws -> Bool {
        guard encoded.hasPrefix(Self.prefix) else { throw StoreError.failure("not a fake hash") }
        return encoded == Self.prefix + password
    }
}

/// Bytes from a fixed-seed generator: different on every call (ids and tokens stay unique),
/// the same in every run.
public final class SeededRandom: RandomSource, @unchecked Sendable {
    private let lock = NSLock()
    private var generator: SplitMix

    public init(seed: UInt64 = 0x5EED) {
        generator = SplitMix(seed: seed)
    }

    public func bytes(count: Int) -> [UInt8] {
        lock.withLock { (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) } }
    }
}

/// SplitMix64: a small, well-mixed deterministic generator, so a failing case can be replayed.
public struct SplitMix: RandomNumberGenerator, Sendable {
    var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Seeded by the bytes (FNV-1a), so equal bytes give equal sequences.
    init(bytes: Data) {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        self.init(seed: hash)
    }
}

/// Device keys without P-256: a key is valid unless its `x` is empty, its thumbprint is
/// derived from `x`, and a signature is `FakeDeviceKeys.sign(_:key:)` of the message.
public struct FakeDeviceKeys: DeviceKeyVerifier {
    public init() {}

    public func thumbprint(of key: DevicePublicKey) throws -> String {
        guard !key.x.isEmpty, !key.y.isEmpty else { throw IdentityError.invalidDeviceKey("empty coordinate") }
        return "thumb-" + key.x
    }

    public func verify(signature: [UInt8], message: [UInt8], key: DevicePublicKey) -> Bool {
        signature == Self.sign(message, key: key)
    }

    /// Fake signatures have no DER form: the same bytes serve.
    public func verify(derSignature: [UInt8], message: [UInt8], key: DevicePublicKey) -> Bool {
        derSignature == Self.sign(message, key: key)
    }

    public func parse(jwkJSON: String) throws -> DevicePublicKey {
        guard let object = try? JSONSerialization.jsonObject(with: Data(jwkJSON.utf8)) as? [String: String],
              let x = object["x"], let y = object["y"] else { throw IdentityError.invalidDeviceKey("unreadable JWK") }
        return DevicePublicKey(x: x, y: y)
    }

    /// The 64 bytes the fake verifier accepts for `message` under `key`.
    public static func sign(_ message: [UInt8], key: DevicePublicKey) -> [UInt8] {
        var generator = SplitMix(bytes: Data((key.x + "|" + key.y + "|").utf8) + Data(message))
        return (0..<64).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
    }

    /// `sign` of `nonce` in the wire form a login takes (base64url).
    public static func signature(of nonce: String, key: DevicePublicKey) -> String {
        Data(sign(Array(nonce.utf8), key: key)).base64URLEncodedString
    }
}

/// Seals by framing: the key id and the associated data in front of the plaintext, so opening
/// with another key or for another owner fails as AES-GCM would, without OpenSSL.
public struct FakeTemplateCipher: TemplateCipher {
    public init() {}

    public func seal(_ plaintext: Data, keyID: String, associatedData: Data) throws -> Data {
        Self.header(keyID: keyID, associatedData: associatedData) + plaintext
    }

    public func open(_ sealed: Data, keyID: String, associatedData: Data) throws -> Data {
        let header = Self.header(keyID: keyID, associatedData: associatedData)
        guard sealed.starts(with: header) else { throw StoreError.failure("sealed for another key or owner") }
        return Data(sealed.dropFirst(header.count))
    }

    private static func header(keyID: String, associatedData: Data) -> Data {
        Data("sealed|\(keyID)|\(associatedData.base64EncodedString())|".utf8)
    }
}
