import COpenSSL

/// Curve arithmetic and key construction for P-256 (internal).
enum P256Curve {
    /// Runs `body` with a fresh `EC_GROUP` for prime256v1.
    static func withGroup<R>(_ body: (OpaquePointer) throws -> R) throws -> R {
        guard let group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1) else {
            throw OpenSSL.failure("EC_GROUP_new_by_curve_name")
        }
        defer { EC_GROUP_free(group) }
        return try body(group)
    }

    /// Parses an encoded point (compressed or uncompressed), checks that it lies on the curve,
    /// and returns its uncompressed 65-byte form.
    static func uncompressedPoint(from encoded: [UInt8]) throws -> [UInt8] {
        try withGroup { group in
            guard let point = EC_POINT_new(group) else { throw OpenSSL.failure("EC_POINT_new") }
            defer { EC_POINT_free(point) }
            let parsed = encoded.withUnsafeBufferPointer { buffer in
                EC_POINT_oct2point(group, point, buffer.baseAddress, buffer.count, nil)
            }
            guard parsed == 1 else {
                ERR_clear_error()
                throw CryptoError.pointNotOnCurve
            }
            guard EC_POINT_is_at_infinity(group, point) == 0 else {
                throw CryptoError.invalidPublicKey("point at infinity")
            }
            guard EC_POINT_is_on_curve(group, point, nil) == 1 else {
                ERR_clear_error()
                throw CryptoError.pointNotOnCurve
            }
            return try encode(point, in: group)
        }
    }

    /// The uncompressed public point d·G, after checking 1 ≤ d < n.
    static func publicPoint(forScalar scalar: OpaquePointer) throws -> [UInt8] {
        try withGroup { group in
            guard let order = EC_GROUP_get0_order(group) else { throw OpenSSL.failure("EC_GROUP_get0_order") }
            guard BN_is_zero(scalar) == 0, BN_is_negative(scalar) == 0, BN_cmp(scalar, order) < 0 else {
                throw CryptoError.invalidPrivateKey("scalar out of range")
            }
            guard let point = EC_POINT_new(group) else { throw OpenSSL.failure("EC_POINT_new") }
            defer { EC_POINT_free(point) }
            guard EC_POINT_mul(group, point, scalar, nil, nil, nil) == 1 else { throw OpenSSL.failure("EC_POINT_mul") }
            return try encode(point, in: group)
        }
    }

    private static func encode(_ point: OpaquePointer, in group: OpaquePointer) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: P256.x963ByteCount)
        let written = EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, &out, out.count, nil)
        guard written == P256.x963ByteCount else { throw OpenSSL.failure("EC_POINT_point2oct") }
        return out
    }

    /// Builds an `EVP_PKEY` on prime256v1 from an uncompressed public point and,
    /// for a private key, its scalar (which must match the point).
    static func makeKey(publicPoint: [UInt8], privateScalar: OpaquePointer?) throws -> EVPKey {
        guard let builder = OSSL_PARAM_BLD_new() else { throw OpenSSL.failure("OSSL_PARAM_BLD_new") }
        defer { OSSL_PARAM_BLD_free(builder) }
        guard OSSL_PARAM_BLD_push_utf8_string(builder, StaticCString.group.pointer, StaticCString.prime256v1.pointer, 0) == 1 else {
            throw OpenSSL.failure("OSSL_PARAM_BLD_push_utf8_string")
        }
        // The builder keeps pointers to the point bytes until `to_param` copies them.
        let built = try publicPoint.withUnsafeBufferPointer { buffer -> UnsafeMutablePointer<OSSL_PARAM>? in
            guard OSSL_PARAM_BLD_push_octet_string(builder, StaticCString.publicKey.pointer, buffer.baseAddress, buffer.count) == 1 else {
                throw OpenSSL.failure("OSSL_PARAM_BLD_push_octet_string")
            }
            if let privateScalar {
                guard OSSL_PARAM_BLD_push_BN(builder, StaticCString.privateKey.pointer, privateScalar) == 1 else {
                    throw OpenSSL.failure("OSSL_PARAM_BLD_push_BN")
                }
            }
            return OSSL_PARAM_BLD_to_param(builder)
        }
        guard let params = built else { throw OpenSSL.failure("OSSL_PARAM_BLD_to_param") }
        defer {
            if let secret = OSSL_PARAM_locate(params, StaticCString.privateKey.pointer), let data = secret.pointee.data {
                OPENSSL_cleanse(data, secret.pointee.data_size)
            }
            OSSL_PARAM_free(params)
        }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, StaticCString.ec.pointer, nil) else {
            throw OpenSSL.failure("EVP_PKEY_CTX_new_from_name")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_fromdata_init(context) == 1 else { throw OpenSSL.failure("EVP_PKEY_fromdata_init") }
        let selection = privateScalar == nil ? KeySelection.publicKey : KeySelection.keyPair
        var key: OpaquePointer?
        guard EVP_PKEY_fromdata(context, &key, selection, params) == 1, let key else {
            throw OpenSSL.failure("EVP_PKEY_fromdata")
        }
        let owned = EVPKey(taking: key)
        try checkPublic(owned)
        return owned
    }

    /// Full public-key validation (`EVP_PKEY_public_check`).
    static func checkPublic(_ key: EVPKey) throws {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil) else {
            throw OpenSSL.failure("EVP_PKEY_CTX_new_from_pkey")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_public_check(context) == 1 else {
            ERR_clear_error()
            throw CryptoError.invalidPublicKey("public key check failed")
        }
    }
}

/// `EVP_PKEY_PUBLIC_KEY` and `EVP_PKEY_KEYPAIR`, rebuilt from their parts:
/// the header macros combine other macros and do not import into Swift.
enum KeySelection {
    private static let parameters = Int32(OSSL_KEYMGMT_SELECT_DOMAIN_PARAMETERS | OSSL_KEYMGMT_SELECT_OTHER_PARAMETERS)
    static let publicKey = parameters | Int32(OSSL_KEYMGMT_SELECT_PUBLIC_KEY)
    static let keyPair = publicKey | Int32(OSSL_KEYMGMT_SELECT_PRIVATE_KEY)
}
