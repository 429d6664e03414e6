import COpenSSL

/// Conversions between the two encodings of a P-256 ECDSA signature:
/// raw `r || s` (64 bytes, used by JWS) and ASN.1 DER `SEQUENCE { r INTEGER, s INTEGER }`
/// (used by OpenSSL, X.509 and WebAuthn).
public enum ECDSASignature {
    /// Size of a raw P-256 signature.
    public static let rawByteCount = 2 * P256.coordinateByteCount

    /// Converts a DER signature to raw `r || s`. Only canonical DER with no trailing
    /// bytes and non-negative r, s of at most 32 bytes is accepted.
    /// - Throws: `CryptoError.invalidSignatureEncoding`.
    public static func derToRaw(_ der: [UInt8]) throws -> [UInt8] {
        guard !der.isEmpty, der.count <= 2 + 2 * 35 else {
            throw CryptoError.invalidSignatureEncoding("DER signature has an impossible length")
        }
        return try der.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { throw CryptoError.invalidSignatureEncoding("empty") }
            var cursor: UnsafePointer<UInt8>? = base
            guard let signature = d2i_ECDSA_SIG(nil, &cursor, buffer.count) else {
                ERR_clear_error()
                throw CryptoError.invalidSignatureEncoding("not a DER ECDSA signature")
            }
            defer { ECDSA_SIG_free(signature) }
            guard let end = cursor, end - base == buffer.count else {
                throw CryptoError.invalidSignatureEncoding("trailing bytes after DER signature")
            }
            guard try encode(signature) == der else {
                throw CryptoError.invalidSignatureEncoding("non-canonical DER")
            }
            var r: OpaquePointer?
            var s: OpaquePointer?
            ECDSA_SIG_get0(signature, &r, &s)
            guard let r, let s, BN_is_negative(r) == 0, BN_is_negative(s) == 0 else {
                throw CryptoError.invalidSignatureEncoding("negative or missing component")
            }
            var raw = [UInt8](repeating: 0, count: rawByteCount)
            let size = Int32(P256.coordinateByteCount)
            let written = raw.withUnsafeMutableBufferPointer { out -> Bool in
                guard let outBase = out.baseAddress else { return false }
                return BN_bn2binpad(r, outBase, size) == size && BN_bn2binpad(s, outBase + Int(size), size) == size
            }
            guard written else { throw CryptoError.invalidSignatureEncoding("component longer than 32 bytes") }
            return raw
        }
    }

    /// Converts raw `r || s` (exactly 64 bytes) to DER.
    /// - Throws: `CryptoError.invalidSignatureEncoding` for a wrong length.
    public static func rawToDER(_ raw: [UInt8]) throws -> [UInt8] {
        guard raw.count == rawByteCount else {
            throw CryptoError.invalidSignatureEncoding("raw signature must be \(rawByteCount) bytes, got \(raw.count)")
        }
        let half = Int32(P256.coordinateByteCount)
        let components = raw.withUnsafeBufferPointer { buffer -> (OpaquePointer?, OpaquePointer?) in
            guard let base = buffer.baseAddress else { return (nil, nil) }
            return (BN_bin2bn(base, half, nil), BN_bin2bn(base + Int(half), half, nil))
        }
        guard let r = components.0, let s = components.1, let signature = ECDSA_SIG_new() else {
            BN_free(components.0)
            BN_free(components.1)
            throw OpenSSL.failure("ECDSA_SIG_new")
        }
        defer { ECDSA_SIG_free(signature) }
        guard ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            throw OpenSSL.failure("ECDSA_SIG_set0")
        }
        return try encode(signature)
    }

    private static func encode(_ signature: OpaquePointer) throws -> [UInt8] {
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { throw OpenSSL.failure("i2d_ECDSA_SIG") }
        var out = [UInt8](repeating: 0, count: Int(length))
        let written = out.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        guard written == length else { throw OpenSSL.failure("i2d_ECDSA_SIG") }
        return out
    }
}
