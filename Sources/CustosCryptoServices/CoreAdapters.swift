import CustosCore
import CustosCrypto
import Foundation

/// Core's device-key checks over OpenSSL: P-256 keys as JWKs, ES256 signatures.
public struct P256DeviceKeyVerifier: DeviceKeyVerifier {
    public init() {}

    public func thumbprint(of key: DevicePublicKey) throws -> String {
        let jwk = JWK(kty: "EC", crv: "P-256", x: key.x, y: key.y)
        do {
            return try jwk.thumbprint()  // parses the key: a point off the curve throws
        } catch let error as CryptoError {
            throw IdentityError.invalidDeviceKey(String(describing: error))
        }
    }

    public func verify(signature: [UInt8], message: [UInt8], key: DevicePublicKey) -> Bool {
        guard let publicKey = try? JWK(kty: "EC", crv: "P-256", x: key.x, y: key.y).p256PublicKey() else { return false }
        return publicKey.verify(signature: signature, message: message)
    }

    public func verify(derSignature: [UInt8], message: [UInt8], key: DevicePublicKey) -> Bool {
        guard let publicKey = try? JWK(kty: "EC", crv: "P-256", x: key.x, y: key.y).p256PublicKey() else { return false }
        return publicKey.verify(derSignature: derSignature, message: message)
    }

    public func parse(jwkJSON: String) throws -> DevicePublicKey {
        let jwk = try JSONDecoder().decode(JWK.self, from: Data(jwkJSON.utf8))
        guard let x = jwk.x, let y = jwk.y else { throw IdentityError.invalidDeviceKey("stored key has no coordinates") }
        return DevicePublicKey(x: x, y: y)
    }
}

/// SHA-256 of secrets, so that only digests are stored.
public struct SHA256SecretDigester: SecretDigester {
    public init() {}
    public func digest(_ secret: String) -> Data { Data(SHA256.hash(utf8: secret)) }
    public func digest(bytes: Data) -> Data { Data(SHA256.hash(bytes)) }
}

/// The audit chain's hash: HMAC-SHA256 under a key derived from the master key
/// (`custos/audit`), so someone who can write to the database but lacks the master key
/// cannot recompute the chain after changing it.
public struct MasterKeyAuditDigester: SecretDigester {
    let masterKey: MasterKey

    public init(masterKey: MasterKey) {
        self.masterKey = masterKey
    }

    public func digest(_ secret: String) -> Data { digest(bytes: Data(secret.utf8)) }

    public func digest(bytes: Data) -> Data {
        var key = masterKey.deriveKey(purpose: "custos/audit")
        defer { OpenSSL.cleanse(&key) }
        return Data(HMACSHA256.authenticate(key: key, message: [UInt8](bytes)))
    }
}

/// Seals face templates with AES-256-GCM under a key derived from the master key for each
/// template key id (HKDF, purpose `custos/template/<key id>`); the user id is bound in as
/// associated data. During a master-key rotation it opens under the previous master key what
/// the primary does not open (`MasterKeys`).
public struct MasterKeyTemplateCipher: TemplateCipher {
    let keys: MasterKeys

    public init(masterKey: MasterKey) {
        self.init(masterKeys: MasterKeys(primary: masterKey))
    }

    public init(masterKeys: MasterKeys) {
        self.keys = masterKeys
    }

    /// The HKDF purpose of the key that seals under template key `keyID`.
    public static func purpose(keyID: String) -> String { "custos/template/" + keyID }

    public func seal(_ plaintext: Data, keyID: String, associatedData: Data) throws -> Data {
        try keys.seal(plaintext, purpose: Self.purpose(keyID: keyID), associatedData: associatedData)
    }

    public func open(_ sealed: Data, keyID: String, associatedData: Data) throws -> Data {
        try keys.open(sealed, purpose: Self.purpose(keyID: keyID), associatedData: associatedData)
    }
}
