import COpenSSL
import Foundation

/// DER/PEM import and export of EC keys through OSSL_ENCODER / OSSL_DECODER (internal).
enum KeyEncoding {
    enum Format {
        case der, pem

        var name: StaticCString {
            switch self {
            case .der: StaticCString("DER")
            case .pem: StaticCString("PEM")
            }
        }
    }

    /// Decodes an EC key (PKCS#8, SEC1 or SubjectPublicKeyInfo) and checks it is on P-256.
    static func decode(_ bytes: [UInt8], format: Format, selection: Int32, invalid: CryptoError) throws -> EVPKey {
        let key = try decode(bytes, format: format, keyType: StaticCString.ec, selection: selection, invalid: invalid)
        guard key.isP256 else { throw CryptoError.unsupportedCurve("not P-256") }
        return key
    }

    /// Decodes a key of `keyType` ("EC", "RSA").
    static func decode(_ bytes: [UInt8], format: Format, keyType: StaticCString, selection: Int32, invalid: CryptoError) throws -> EVPKey {
        var decoded: OpaquePointer?
        // The decoder context keeps the address of the output variable until `from_data`.
        let status = withUnsafeMutablePointer(to: &decoded) { slot -> Int32 in
            guard let context = OSSL_DECODER_CTX_new_for_pkey(
                slot, format.name.pointer, nil, keyType.pointer, selection, nil, nil)
            else { return 0 }
            defer { OSSL_DECODER_CTX_free(context) }
            return bytes.withUnsafeBufferPointer { buffer in
                var cursor = buffer.baseAddress
                var remaining = buffer.count
                return OSSL_DECODER_from_data(context, &cursor, &remaining)
            }
        }
        guard status == 1, let decoded else {
            ERR_clear_error()
            throw invalid
        }
        return EVPKey(taking: decoded)
    }

    /// Encodes `key` as `structure` ("PrivateKeyInfo" or "SubjectPublicKeyInfo").
    static func encode(_ key: EVPKey, format: Format, structure: StaticCString, selection: Int32) throws -> [UInt8] {
        guard let context = OSSL_ENCODER_CTX_new_for_pkey(key.pointer, selection, format.name.pointer, structure.pointer, nil) else {
            throw OpenSSL.failure("OSSL_ENCODER_CTX_new_for_pkey")
        }
        defer { OSSL_ENCODER_CTX_free(context) }
        var data: UnsafeMutablePointer<UInt8>?
        var length = 0
        guard OSSL_ENCODER_to_data(context, &data, &length) == 1, let data else {
            throw OpenSSL.failure("OSSL_ENCODER_to_data")
        }
        defer {
            OPENSSL_cleanse(data, length)
            CRYPTO_free(data, nil, 0)
        }
        return Array(UnsafeBufferPointer(start: data, count: length))
    }

    /// Wraps DER bytes in PEM armour with 64-character lines.
    static func pem(_ der: [UInt8], label: String) -> String {
        let body = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN \(label)-----\n\(body)\n-----END \(label)-----\n"
    }
}
