import COpenSSL
import Foundation

/// JWE compact serialization (RFC 7516) with one key management and one content encryption:
/// `ECDH-ES+A256KW` (RFC 7518 §4.6: an ephemeral P-256 key, the Concat KDF, AES key wrap)
/// and `A256GCM`. Used to encrypt ID tokens to a client's registered key, so that only the
/// client's server reads them.
public enum JWE {
    public static let algorithm = "ECDH-ES+A256KW"
    public static let encryption = "A256GCM"

    /// What a decryption gives: the protected header's members and the plaintext.
    public struct Decrypted: Sendable {
        public let kid: String?
        public let contentType: String?
        public let plaintext: Data
    }

    /// Encrypts `plaintext` to `recipient`; `contentType` is `cty` (`JWT` for a nested JWT).
    public static func encrypt(_ plaintext: Data, to recipient: P256.PublicKey, kid: String? = nil, contentType: String? = nil) throws -> String {
        let ephemeral = try P256.PrivateKey.generate()
        var header: [String: Any] = [
            "alg": algorithm, "enc": encryption,
            "epk": ["kty": "EC", "crv": "P-256", "x": Base64URL.encode(ephemeral.publicKey.x), "y": Base64URL.encode(ephemeral.publicKey.y)],
        ]
        if let kid { header["kid"] = kid }
        if let contentType { header["cty"] = contentType }
        let headerSegment = Base64URL.encode(try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys, .withoutEscapingSlashes]))
        var sharedSecret = try agree(ephemeral, recipient)
        defer { OpenSSL.cleanse(&sharedSecret) }
        var kek = concatKDF(sharedSecret: sharedSecret)
        defer { OpenSSL.cleanse(&kek) }
        var cek = SecureRandom().bytes(count: 32)
        defer { OpenSSL.cleanse(&cek) }
        let wrapped = try AESKeyWrap.wrap(cek, with: kek)
        let box = try AESGCM.seal(plaintext: [UInt8](plaintext), key: cek, aad: Array(headerSegment.utf8))
        return [headerSegment, Base64URL.encode(wrapped), Base64URL.encode(box.nonce), Base64URL.encode(box.ciphertext), Base64URL.encode(box.tag)]
            .joined(separator: ".")
    }

    /// Decrypts a compact JWE made with this algorithm pair under `key`.
    public static func decrypt(_ compact: String, with key: P256.PrivateKey) throws -> Decrypted {
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 5 else { throw CryptoError.malformedJWS("a compact JWE has 5 segments, got \(parts.count)") }
        guard let headerJSON = try? Base64URL.decodeData(parts[0]),
              let header = try? JSONSerialization.jsonObject(with: headerJSON) as? [String: Any] else {
            throw CryptoError.malformedJWS("the JWE header is not base64url JSON")
        }
        guard header["alg"] as? String == algorithm, header["enc"] as? String == encryption else {
            throw CryptoError.unsupportedAlgorithm("\(header["alg"] ?? "?")/\(header["enc"] ?? "?")")
        }
        guard header["crit"] == nil else { throw CryptoError.malformedJWS("unsupported crit header") }
        guard let epk = header["epk"] as? [String: Any], let x = epk["x"] as? String, let y = epk["y"] as? String,
              epk["kty"] as? String == "EC", epk["crv"] as? String == "P-256" else {
            throw CryptoError.malformedJWS("epk must be an EC P-256 public key")
        }
        let ephemeral = try P256.PublicKey(x: Base64URL.decode(x), y: Base64URL.decode(y))
        var sharedSecret = try agree(key, ephemeral)
        defer { OpenSSL.cleanse(&sharedSecret) }
        var kek = concatKDF(sharedSecret: sharedSecret)
        defer { OpenSSL.cleanse(&kek) }
        var cek = try AESKeyWrap.unwrap(Base64URL.decode(parts[1]), with: kek)
        defer { OpenSSL.cleanse(&cek) }
        let box = try AESGCM.SealedBox(nonce: Base64URL.decode(parts[2]), ciphertext: Base64URL.decode(parts[3]), tag: Base64URL.decode(parts[4]))
        let plaintext = try AESGCM.open(box, key: cek, aad: Array(parts[0].utf8))
        return Decrypted(kid: header["kid"] as? String, contentType: header["cty"] as? String, plaintext: Data(plaintext))
    }

    /// ECDH on P-256: the x coordinate of the shared point (32 bytes).
    static func agree(_ privateKey: P256.PrivateKey, _ publicKey: P256.PublicKey) throws -> [UInt8] {
        guard let context = EVP_PKEY_CTX_new(privateKey.key.pointer, nil) else { throw OpenSSL.failure("EVP_PKEY_CTX_new") }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_derive_init(context) == 1, EVP_PKEY_derive_set_peer(context, publicKey.key.pointer) == 1 else {
            throw OpenSSL.failure("EVP_PKEY_derive_init")
        }
        var length = 0
        guard EVP_PKEY_derive(context, nil, &length) == 1, length == 32 else { throw OpenSSL.failure("EVP_PKEY_derive(length)") }
        var secret = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_derive(context, &secret, &length) == 1, length == 32 else { throw OpenSSL.failure("EVP_PKEY_derive") }
        return secret
    }

    /// The Concat KDF of NIST SP 800-56A as RFC 7518 §4.6.2 uses it, for a 256-bit key with
    /// AlgorithmID the `alg` and empty PartyUInfo and PartyVInfo: one SHA-256 round.
    static func concatKDF(sharedSecret: [UInt8]) -> [UInt8] {
        func lengthPrefixed(_ bytes: [UInt8]) -> [UInt8] { bigEndian(UInt32(bytes.count)) + bytes }
        func bigEndian(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian, Array.init) }
        let input = bigEndian(1) + sharedSecret + lengthPrefixed(Array(algorithm.utf8)) + lengthPrefixed([]) + lengthPrefixed([]) + bigEndian(256)
        return SHA256.hash(input)
    }
}

/// AES key wrap (RFC 3394) with a 256-bit key encryption key, through OpenSSL.
enum AESKeyWrap {
    static func wrap(_ key: [UInt8], with kek: [UInt8]) throws -> [UInt8] {
        try run(input: key, kek: kek, encrypt: true, outputCount: key.count + 8)
    }

    /// Throws `CryptoError.authenticationFailed` when the integrity check fails.
    static func unwrap(_ wrapped: [UInt8], with kek: [UInt8]) throws -> [UInt8] {
        guard wrapped.count >= 24, wrapped.count % 8 == 0 else { throw CryptoError.invalidCiphertext }
        return try run(input: wrapped, kek: kek, encrypt: false, outputCount: wrapped.count - 8)
    }

    private static func run(input: [UInt8], kek: [UInt8], encrypt: Bool, outputCount: Int) throws -> [UInt8] {
        guard kek.count == 32 else { throw CryptoError.invalidKeySize(kek.count) }
        guard let context = EVP_CIPHER_CTX_new() else { throw OpenSSL.failure("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(context) }
        EVP_CIPHER_CTX_set_flags(context, Int32(EVP_CIPHER_CTX_FLAG_WRAP_ALLOW))
        guard EVP_CipherInit_ex(context, EVP_aes_256_wrap(), nil, kek, nil, encrypt ? 1 : 0) == 1 else {
            throw OpenSSL.failure("EVP_CipherInit_ex(aes-256-wrap)")
        }
        var output = [UInt8](repeating: 0, count: input.count + 16)
        var written: Int32 = 0
        guard EVP_CipherUpdate(context, &output, &written, input, Int32(input.count)) == 1, Int(written) == outputCount else {
            ERR_clear_error()
            OpenSSL.cleanse(&output)
            if encrypt { throw OpenSSL.failure("EVP_CipherUpdate(aes-256-wrap)") }
            throw CryptoError.authenticationFailed
        }
        var finalWritten: Int32 = 0
        var scratch = [UInt8](repeating: 0, count: 16)
        guard EVP_CipherFinal_ex(context, &scratch, &finalWritten) == 1, finalWritten == 0 else {
            ERR_clear_error()
            throw CryptoError.authenticationFailed
        }
        return Array(output.prefix(outputCount))
    }
}
