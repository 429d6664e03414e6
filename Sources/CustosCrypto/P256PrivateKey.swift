import CustosAPI
import COpenSSL
import Foundation

extension P256 {
    /// A P-256 signing key. Its description never shows the secret scalar.
    public struct PrivateKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
        let key: EVPKey

        /// The matching public key.
        public let publicKey: PublicKey

        private init(key: EVPKey) throws {
            self.key = key
            let point = try P256Curve.uncompressedPoint(from: key.encodedPublicPoint())
            self.publicKey = try PublicKey(x963Representation: point)
        }

        /// Generates a fresh key pair from OpenSSL's CSPRNG.
        /// - Throws: `CryptoError.openSSLFailure` if key generation fails.
        public static func generate() throws -> PrivateKey {
            guard let context = EVP_PKEY_CTX_new_id(EVP_PKEY_EC, nil) else {
                throw OpenSSL.failure("EVP_PKEY_CTX_new_id")
            }
            defer { EVP_PKEY_CTX_free(context) }
            guard EVP_PKEY_keygen_init(context) == 1,
                  EVP_PKEY_CTX_set_ec_paramgen_curve_nid(context, NID_X9_62_prime256v1) == 1
            else { throw OpenSSL.failure("EVP_PKEY_keygen_init") }
            var generated: OpaquePointer?
            guard EVP_PKEY_keygen(context, &generated) == 1, let generated else {
                throw OpenSSL.failure("EVP_PKEY_keygen")
            }
            return try PrivateKey(key: EVPKey(taking: generated))
        }

        /// Imports the private scalar d (32 big-endian bytes, 1 ≤ d < n).
        /// - Throws: `CryptoError.invalidPrivateKey`.
        public init(rawRepresentation: [UInt8]) throws {
            guard rawRepresentation.count == P256.coordinateByteCount else {
                throw CryptoError.invalidPrivateKey("scalar must be 32 bytes")
            }
            let parsed = rawRepresentation.withUnsafeBufferPointer { buffer in
                BN_bin2bn(buffer.baseAddress, Int32(buffer.count), nil)
            }
            guard let scalar = parsed else { throw OpenSSL.failure("BN_bin2bn") }
            defer { BN_clear_free(scalar) }
            let point = try P256Curve.publicPoint(forScalar: scalar)
            try self.init(key: P256Curve.makeKey(publicPoint: point, privateScalar: scalar))
        }

        /// Imports a DER PKCS#8 `PrivateKeyInfo` (or SEC1 `ECPrivateKey`) for P-256.
        public init(derRepresentation: [UInt8]) throws {
            try self.init(decoding: derRepresentation, format: .der)
        }

        /// Imports a PEM `PRIVATE KEY` (PKCS#8) or `EC PRIVATE KEY` (SEC1) for P-256.
        public init(pemRepresentation: String) throws {
            try self.init(decoding: Array(pemRepresentation.utf8), format: .pem)
        }

        private init(decoding bytes: [UInt8], format: KeyEncoding.Format) throws {
            let decoded = try KeyEncoding.decode(
                bytes, format: format, selection: KeySelection.keyPair,
                invalid: .invalidPrivateKey("not a DER/PEM EC private key"))
            var scalar = try decoded.privateScalar()
            defer { OpenSSL.cleanse(&scalar) }
            // Rebuild from the scalar so the public part is always derived, never trusted.
            try self.init(rawRepresentation: scalar)
        }

        /// The private scalar d (32 big-endian bytes). Handle as a secret.
        public var rawRepresentation: [UInt8] {
            get throws { try key.privateScalar() }
        }

        /// DER PKCS#8 `PrivateKeyInfo`. Handle as a secret.
        public var derRepresentation: [UInt8] {
            get throws {
                try KeyEncoding.encode(key, format: .der, structure: StaticCString("PrivateKeyInfo"), selection: KeySelection.keyPair)
            }
        }

        /// PEM `PRIVATE KEY` (PKCS#8). Handle as a secret.
        public var pemRepresentation: String {
            get throws {
                var der = try derRepresentation
                defer { OpenSSL.cleanse(&der) }
                return KeyEncoding.pem(der, label: "PRIVATE KEY")
            }
        }

        /// Signs SHA-256(`message`) and returns the raw `r || s` signature (64 bytes), as JWS needs.
        public func sign(_ message: [UInt8]) throws -> [UInt8] {
            try ECDSASignature.derToRaw(signDER(message))
        }

        /// `sign(_:)` for `Data`.
        public func sign(_ message: Data) throws -> Data {
            Data(try sign([UInt8](message)))
        }

        /// Signs SHA-256(`message`) and returns the ASN.1 DER signature.
        public func signDER(_ message: [UInt8]) throws -> [UInt8] {
            guard let context = EVP_MD_CTX_new() else { throw OpenSSL.failure("EVP_MD_CTX_new") }
            defer { EVP_MD_CTX_free(context) }
            guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key.pointer) == 1 else {
                throw OpenSSL.failure("EVP_DigestSignInit")
            }
            var signature = [UInt8](repeating: 0, count: max(Int(EVP_PKEY_get_size(key.pointer)), 72))
            var length = signature.count
            let status = message.withNonNullBytes { messagePointer, messageCount in
                EVP_DigestSign(context, &signature, &length, messagePointer, messageCount)
            }
            guard status == 1 else { throw OpenSSL.failure("EVP_DigestSign") }
            return Array(signature.prefix(length))
        }

        /// Shows the public key only.
        public var description: String {
            "P256.PrivateKey(<redacted>, public: \(Hex.encode(publicKey.x963Representation)))"
        }

        /// Shows the public key only.
        public var debugDescription: String { description }
    }
}
