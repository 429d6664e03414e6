import COpenSSL
import Foundation

/// An RSA signing key for RS256 (RSASSA-PKCS1-v1_5 with SHA-256, RFC 7518 §3.3): what
/// OpenID Connect Discovery requires every provider to offer for ID tokens. Its description
/// never shows the private key.
public struct RSASigningKey: Sendable, CustomStringConvertible {
    let key: EVPKey

    /// The modulus size new keys get (RFC 7518 §3.3 asks 2048 or more).
    public static let defaultBits = 2048

    private init(key: EVPKey) { self.key = key }

    /// A fresh key pair from OpenSSL's CSPRNG, public exponent 65537.
    public static func generate(bits: Int = defaultBits) throws -> RSASigningKey {
        guard bits >= 2048, let context = EVP_PKEY_CTX_new_id(EVP_PKEY_RSA, nil) else { throw OpenSSL.failure("EVP_PKEY_CTX_new_id(RSA)") }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_CTX_set_rsa_keygen_bits(context, Int32(bits)) == 1 else {
            throw OpenSSL.failure("EVP_PKEY_keygen_init(RSA)")
        }
        var generated: OpaquePointer?
        guard EVP_PKEY_keygen(context, &generated) == 1, let generated else { throw OpenSSL.failure("EVP_PKEY_keygen(RSA)") }
        return RSASigningKey(key: EVPKey(taking: generated))
    }

    /// Imports a DER PKCS#8 `PrivateKeyInfo` holding an RSA key of 2048 bits or more.
    public init(derRepresentation: [UInt8]) throws {
        let key = try KeyEncoding.decode(derRepresentation, format: .der, keyType: StaticCString("RSA"), selection: KeySelection.keyPair,
                                         invalid: .invalidPrivateKey("not a DER RSA private key"))
        guard EVP_PKEY_is_a(key.pointer, StaticCString("RSA").pointer) == 1, EVP_PKEY_get_bits(key.pointer) >= 2048 else {
            throw CryptoError.invalidPrivateKey("not an RSA key of 2048 bits or more")
        }
        self.init(key: key)
    }

    /// DER PKCS#8 `PrivateKeyInfo`. Handle as a secret.
    public var derRepresentation: [UInt8] {
        get throws { try KeyEncoding.encode(key, format: .der, structure: StaticCString("PrivateKeyInfo"), selection: KeySelection.keyPair) }
    }

    /// The public JWK: `n` and `e` base64url, big-endian without leading zeros (RFC 7518 §6.3.1).
    public func publicJWK(kid: String) throws -> JWK {
        var jwk = JWK(kty: "RSA", kid: kid, use: "sig", alg: "RS256")
        jwk.n = Base64URL.encode(try parameter("n"))
        jwk.e = Base64URL.encode(try parameter("e"))
        return jwk
    }

    /// RSASSA-PKCS1-v1_5 over SHA-256(`message`).
    public func sign(_ message: [UInt8]) throws -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw OpenSSL.failure("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key.pointer) == 1 else { throw OpenSSL.failure("EVP_DigestSignInit(RSA)") }
        var signature = [UInt8](repeating: 0, count: Int(EVP_PKEY_get_size(key.pointer)))
        var length = signature.count
        let status = message.withNonNullBytes { pointer, count in EVP_DigestSign(context, &signature, &length, pointer, count) }
        guard status == 1 else { throw OpenSSL.failure("EVP_DigestSign(RSA)") }
        return Array(signature.prefix(length))
    }

    /// Whether `signature` is this key's RS256 signature over `message`.
    public func verify(signature: [UInt8], message: [UInt8]) -> Bool {
        guard signature.count == Int(EVP_PKEY_get_size(key.pointer)), let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key.pointer) == 1 else {
            ERR_clear_error()
            return false
        }
        let status = message.withNonNullBytes { pointer, count in
            signature.withUnsafeBufferPointer { EVP_DigestVerify(context, $0.baseAddress, $0.count, pointer, count) }
        }
        if status != 1 { ERR_clear_error() }
        return status == 1
    }

    private func parameter(_ name: String) throws -> [UInt8] {
        var number: OpaquePointer?
        guard EVP_PKEY_get_bn_param(key.pointer, name, &number) == 1, let number else { throw OpenSSL.failure("EVP_PKEY_get_bn_param(\(name))") }
        defer { BN_free(number) }
        var bytes = [UInt8](repeating: 0, count: Int((BN_num_bits(number) + 7) / 8))
        _ = BN_bn2bin(number, &bytes)
        return bytes
    }

    public var description: String { "RSASigningKey(<redacted>, \(EVP_PKEY_get_bits(key.pointer)) bits)" }
}
