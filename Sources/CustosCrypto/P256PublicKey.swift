import CustosAPI
import COpenSSL
import Foundation

extension P256 {
    /// A validated P-256 public key. Every initialiser rejects points that are not on the curve.
    public struct PublicKey: Sendable, Equatable, CustomStringConvertible {
        let key: EVPKey

        /// The uncompressed X9.63 encoding `0x04 || x || y` (65 bytes).
        public let x963Representation: [UInt8]

        /// Imports an uncompressed X9.63 point (65 bytes, leading 0x04).
        /// - Throws: `CryptoError.invalidPublicKey` for a wrong length or prefix,
        ///   `.pointNotOnCurve` for coordinates off the curve.
        public init(x963Representation: [UInt8]) throws {
            guard x963Representation.count == P256.x963ByteCount, x963Representation.first == 0x04 else {
                throw CryptoError.invalidPublicKey("expected a 65-byte uncompressed point")
            }
            let point = try P256Curve.uncompressedPoint(from: x963Representation)
            self.key = try P256Curve.makeKey(publicPoint: point, privateScalar: nil)
            self.x963Representation = point
        }

        /// Imports affine coordinates, each 32 big-endian bytes.
        public init(x: [UInt8], y: [UInt8]) throws {
            guard x.count == P256.coordinateByteCount, y.count == P256.coordinateByteCount else {
                throw CryptoError.invalidPublicKey("coordinates must be 32 bytes each")
            }
            try self.init(x963Representation: [0x04] + x + y)
        }

        /// Imports `x || y` (64 bytes).
        public init(rawRepresentation: [UInt8]) throws {
            guard rawRepresentation.count == 2 * P256.coordinateByteCount else {
                throw CryptoError.invalidPublicKey("raw key must be 64 bytes")
            }
            try self.init(x963Representation: [0x04] + rawRepresentation)
        }

        /// Imports a DER SubjectPublicKeyInfo (compressed or uncompressed point).
        /// - Throws: `CryptoError.invalidPublicKey`, `.unsupportedCurve` for another curve.
        public init(derRepresentation: [UInt8]) throws {
            try self.init(decoding: derRepresentation, format: .der)
        }

        /// Imports a PEM `PUBLIC KEY` (SubjectPublicKeyInfo).
        public init(pemRepresentation: String) throws {
            try self.init(decoding: Array(pemRepresentation.utf8), format: .pem)
        }

        private init(decoding bytes: [UInt8], format: KeyEncoding.Format) throws {
            let decoded = try KeyEncoding.decode(
                bytes, format: format, selection: KeySelection.publicKey,
                invalid: .invalidPublicKey("not a DER/PEM SubjectPublicKeyInfo for an EC key"))
            let point = try P256Curve.uncompressedPoint(from: decoded.encodedPublicPoint())
            try self.init(x963Representation: point)
        }

        /// The x coordinate (32 bytes).
        public var x: [UInt8] { Array(x963Representation[1...32]) }
        /// The y coordinate (32 bytes).
        public var y: [UInt8] { Array(x963Representation[33...64]) }
        /// `x || y` (64 bytes).
        public var rawRepresentation: [UInt8] { Array(x963Representation.dropFirst()) }

        /// DER SubjectPublicKeyInfo (91 bytes: the fixed id-ecPublicKey/prime256v1 header, then the point).
        public var derRepresentation: [UInt8] { Self.spkiPrefix + x963Representation }

        /// PEM `PUBLIC KEY`.
        public var pemRepresentation: String { KeyEncoding.pem(derRepresentation, label: "PUBLIC KEY") }

        /// SEQUENCE { SEQUENCE { id-ecPublicKey, prime256v1 }, BIT STRING (66 bytes) }.
        private static let spkiPrefix: [UInt8] = [
            0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01,
            0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
        ]

        /// Whether `signature` (raw `r || s`, 64 bytes) is a valid ECDSA signature of
        /// SHA-256(`message`). Malformed signatures return false.
        public func verify(signature: [UInt8], message: [UInt8]) -> Bool {
            guard signature.count == ECDSASignature.rawByteCount,
                  let der = try? ECDSASignature.rawToDER(signature)
            else { return false }
            return verify(derSignature: der, message: message)
        }

        /// `verify(signature:message:)` for `Data`.
        public func verify(signature: Data, message: Data) -> Bool {
            verify(signature: [UInt8](signature), message: [UInt8](message))
        }

        /// Whether `derSignature` (ASN.1 DER) is a valid ECDSA signature of SHA-256(`message`).
        public func verify(derSignature: [UInt8], message: [UInt8]) -> Bool {
            guard let context = EVP_MD_CTX_new() else { return false }
            defer { EVP_MD_CTX_free(context) }
            guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key.pointer) == 1 else {
                ERR_clear_error()
                return false
            }
            let status = derSignature.withNonNullBytes { signaturePointer, signatureCount in
                message.withNonNullBytes { messagePointer, messageCount in
                    EVP_DigestVerify(context, signaturePointer, signatureCount, messagePointer, messageCount)
                }
            }
            if status != 1 { ERR_clear_error() }
            return status == 1
        }

        /// Keys are equal when their points are equal.
        public static func == (lhs: PublicKey, rhs: PublicKey) -> Bool {
            lhs.x963Representation == rhs.x963Representation
        }

        /// The uncompressed point in hex.
        public var description: String {
            "P256.PublicKey(\(Hex.encode(x963Representation)))"
        }
    }
}
