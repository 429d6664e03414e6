import COpenSSL

/// Owns one `EVP_PKEY`. OpenSSL 3 allows concurrent read-only use of a key
/// (signing and verifying each make their own context), hence `@unchecked Sendable`.
final class EVPKey: @unchecked Sendable {
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    /// Whether the key is an EC key on prime256v1.
    var isP256: Bool {
        guard EVP_PKEY_is_a(pointer, StaticCString.ec.pointer) == 1 else { return false }
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_utf8_string_param(pointer, StaticCString.group.pointer, &name, name.count, &length) == 1 else {
            ERR_clear_error()
            return false
        }
        let bytes = name.prefix(length).map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self) == "prime256v1"
    }

    /// The encoded public point as OpenSSL holds it (uncompressed or compressed).
    func encodedPublicPoint() throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 133)
        var length = 0
        guard EVP_PKEY_get_octet_string_param(pointer, StaticCString.publicKey.pointer, &buffer, buffer.count, &length) == 1 else {
            throw OpenSSL.failure("EVP_PKEY_get_octet_string_param(pub)")
        }
        return Array(buffer.prefix(length))
    }

    /// The private scalar as 32 big-endian bytes.
    func privateScalar() throws -> [UInt8] {
        var scalar: OpaquePointer?
        guard EVP_PKEY_get_bn_param(pointer, StaticCString.privateKey.pointer, &scalar) == 1, let scalar else {
            throw OpenSSL.failure("EVP_PKEY_get_bn_param(priv)")
        }
        defer { BN_clear_free(scalar) }
        var out = [UInt8](repeating: 0, count: P256.coordinateByteCount)
        guard BN_bn2binpad(scalar, &out, Int32(out.count)) == Int32(out.count) else {
            throw CryptoError.invalidPrivateKey("scalar does not fit in 32 bytes")
        }
        return out
    }
}
