import COpenSSL
import Foundation

/// AES in Galois/Counter Mode (NIST SP 800-38D) with 12-byte nonces and 16-byte tags.
/// Keys of 16, 24 or 32 bytes select AES-128, AES-192 or AES-256.
public enum AESGCM {
    /// Nonce size in bytes.
    public static let nonceByteCount = 12
    /// Tag size in bytes.
    public static let tagByteCount = 16

    /// The output of `seal`: nonce, ciphertext (same length as the plaintext) and tag.
    public struct SealedBox: Sendable, Equatable {
        /// The 12-byte nonce.
        public let nonce: [UInt8]
        /// The ciphertext, as long as the plaintext.
        public let ciphertext: [UInt8]
        /// The 16-byte authentication tag.
        public let tag: [UInt8]

        /// Assembles a box from its parts; throws if the nonce or tag has the wrong size.
        public init(nonce: [UInt8], ciphertext: [UInt8], tag: [UInt8]) throws {
            guard nonce.count == AESGCM.nonceByteCount else { throw CryptoError.invalidNonceSize(nonce.count) }
            guard tag.count == AESGCM.tagByteCount else { throw CryptoError.invalidTagSize(tag.count) }
            self.nonce = nonce
            self.ciphertext = ciphertext
            self.tag = tag
        }

        /// Parses `nonce || ciphertext || tag`.
        public init(combined: [UInt8]) throws {
            guard combined.count >= AESGCM.nonceByteCount + AESGCM.tagByteCount else {
                throw CryptoError.invalidCiphertext
            }
            let tagStart = combined.count - AESGCM.tagByteCount
            try self.init(
                nonce: Array(combined[0..<AESGCM.nonceByteCount]),
                ciphertext: Array(combined[AESGCM.nonceByteCount..<tagStart]),
                tag: Array(combined[tagStart...]))
        }

        /// Parses `nonce || ciphertext || tag`.
        public init(combined: Data) throws {
            try self.init(combined: [UInt8](combined))
        }

        /// `nonce || ciphertext || tag`, the form to store or transmit.
        public var combined: [UInt8] { nonce + ciphertext + tag }
    }

    /// Encrypts and authenticates `plaintext`, also authenticating `aad`.
    /// - Parameter nonce: 12 bytes; a fresh random nonce when nil (never reuse one under a key).
    /// - Throws: `CryptoError.invalidKeySize`, `.invalidNonceSize`, `.openSSLFailure`.
    public static func seal(
        plaintext: [UInt8],
        key: [UInt8],
        nonce: [UInt8]? = nil,
        aad: [UInt8] = []
    ) throws -> SealedBox {
        let cipher = try cipher(forKeySize: key.count)
        let iv = nonce ?? SecureRandom().bytes(count: nonceByteCount)
        guard iv.count == nonceByteCount else { throw CryptoError.invalidNonceSize(iv.count) }
        let context = try CipherContext()
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count)
        var tag = [UInt8](repeating: 0, count: tagByteCount)
        try context.initialise(cipher: cipher, key: key, iv: iv, encrypt: true)
        try context.updateAAD(aad)
        try context.update(input: plaintext, output: &ciphertext, operation: "EVP_EncryptUpdate")
        var finalLength: Int32 = 0
        var scratch = [UInt8](repeating: 0, count: 16)
        guard EVP_EncryptFinal_ex(context.pointer, &scratch, &finalLength) == 1, finalLength == 0 else {
            throw OpenSSL.failure("EVP_EncryptFinal_ex")
        }
        let tagStatus = tag.withUnsafeMutableBytes { raw in
            EVP_CIPHER_CTX_ctrl(context.pointer, EVP_CTRL_GCM_GET_TAG, Int32(tagByteCount), raw.baseAddress)
        }
        guard tagStatus == 1 else { throw OpenSSL.failure("EVP_CTRL_GCM_GET_TAG") }
        return try SealedBox(nonce: iv, ciphertext: ciphertext, tag: tag)
    }

    /// `seal` for `Data`; returns the combined form `nonce || ciphertext || tag`.
    public static func seal(plaintext: Data, key: [UInt8], aad: Data = Data()) throws -> Data {
        Data(try seal(plaintext: [UInt8](plaintext), key: key, aad: [UInt8](aad)).combined)
    }

    /// Verifies the tag and decrypts.
    /// - Throws: `CryptoError.authenticationFailed` if the tag does not match
    ///   (wrong key, nonce, AAD, or any modified byte); `.invalidKeySize` for a bad key.
    public static func open(_ box: SealedBox, key: [UInt8], aad: [UInt8] = []) throws -> [UInt8] {
        let cipher = try cipher(forKeySize: key.count)
        let context = try CipherContext()
        var plaintext = [UInt8](repeating: 0, count: box.ciphertext.count)
        try context.initialise(cipher: cipher, key: key, iv: box.nonce, encrypt: false)
        try context.updateAAD(aad)
        try context.update(input: box.ciphertext, output: &plaintext, operation: "EVP_DecryptUpdate")
        var expectedTag = box.tag
        let tagStatus = expectedTag.withUnsafeMutableBytes { raw in
            EVP_CIPHER_CTX_ctrl(context.pointer, EVP_CTRL_GCM_SET_TAG, Int32(tagByteCount), raw.baseAddress)
        }
        guard tagStatus == 1 else { throw OpenSSL.failure("EVP_CTRL_GCM_SET_TAG") }
        var finalLength: Int32 = 0
        var scratch = [UInt8](repeating: 0, count: 16)
        guard EVP_DecryptFinal_ex(context.pointer, &scratch, &finalLength) == 1 else {
            ERR_clear_error()
            OpenSSL.cleanse(&plaintext)
            throw CryptoError.authenticationFailed
        }
        return plaintext
    }

    /// `open` for the combined form `nonce || ciphertext || tag` as `Data`.
    public static func open(combined: Data, key: [UInt8], aad: Data = Data()) throws -> Data {
        Data(try open(SealedBox(combined: combined), key: key, aad: [UInt8](aad)))
    }

    private static func cipher(forKeySize size: Int) throws -> OpaquePointer {
        let cipher: OpaquePointer?
        switch size {
        case 16: cipher = EVP_aes_128_gcm()
        case 24: cipher = EVP_aes_192_gcm()
        case 32: cipher = EVP_aes_256_gcm()
        default: throw CryptoError.invalidKeySize(size)
        }
        guard let cipher else { throw OpenSSL.failure("EVP_aes_gcm") }
        return cipher
    }
}

/// Owns an `EVP_CIPHER_CTX` for one GCM operation.
private final class CipherContext {
    let pointer: OpaquePointer

    init() throws {
        guard let context = EVP_CIPHER_CTX_new() else { throw OpenSSL.failure("EVP_CIPHER_CTX_new") }
        pointer = context
    }

    deinit { EVP_CIPHER_CTX_free(pointer) }

    func initialise(cipher: OpaquePointer, key: [UInt8], iv: [UInt8], encrypt: Bool) throws {
        let mode: Int32 = encrypt ? 1 : 0
        guard EVP_CipherInit_ex(pointer, cipher, nil, nil, nil, mode) == 1,
              EVP_CIPHER_CTX_ctrl(pointer, EVP_CTRL_GCM_SET_IVLEN, Int32(iv.count), nil) == 1
        else { throw OpenSSL.failure("EVP_CipherInit_ex") }
        let status = key.withUnsafeBufferPointer { keyBuffer in
            iv.withUnsafeBufferPointer { ivBuffer in
                EVP_CipherInit_ex(pointer, nil, nil, keyBuffer.baseAddress, ivBuffer.baseAddress, mode)
            }
        }
        guard status == 1 else { throw OpenSSL.failure("EVP_CipherInit_ex(key, iv)") }
    }

    func updateAAD(_ aad: [UInt8]) throws {
        guard !aad.isEmpty else { return }
        guard aad.count <= Int(Int32.max) else { throw CryptoError.invalidCiphertext }
        var written: Int32 = 0
        let status = aad.withUnsafeBufferPointer { buffer in
            EVP_CipherUpdate(pointer, nil, &written, buffer.baseAddress, Int32(buffer.count))
        }
        guard status == 1 else { throw OpenSSL.failure("EVP_CipherUpdate(aad)") }
    }

    func update(input: [UInt8], output: inout [UInt8], operation: String) throws {
        guard !input.isEmpty else { return }
        guard input.count <= Int(Int32.max) else { throw CryptoError.invalidCiphertext }
        var written: Int32 = 0
        let status = input.withUnsafeBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                EVP_CipherUpdate(pointer, outBuffer.baseAddress, &written, inBuffer.baseAddress, Int32(inBuffer.count))
            }
        }
        guard status == 1, Int(written) == input.count else { throw OpenSSL.failure(operation) }
    }
}
