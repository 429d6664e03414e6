import Foundation

/// JWS compact serialization (RFC 7515) restricted to ES256 (ECDSA P-256 SHA-256), and RS256
/// where an RSA key signs (ID tokens for clients that ask for it). Any other "alg", including
/// "none", is rejected; a key verifies only its own algorithm.
public enum JWS {
    /// The protected header. Unknown members are ignored when verifying; a "crit" member
    /// is rejected because no extensions are supported.
    public struct Header: Codable, Sendable, Equatable {
        /// Algorithm; only "ES256" is accepted.
        public var alg: String
        /// Media type of the whole JWS, e.g. "JWT".
        public var typ: String?
        /// Identifier of the signing key.
        public var kid: String?
        /// Media type of the payload.
        public var cty: String?
        /// Critical extensions; any value makes verification fail.
        public var crit: [String]?

        /// A header with the given members.
        public init(alg: String = "ES256", typ: String? = nil, kid: String? = nil, cty: String? = nil) {
            self.alg = alg
            self.typ = typ
            self.kid = kid
            self.cty = cty
        }
    }

    /// A verified JWS: its header, the exact header JSON that was signed, and the payload.
    public struct Verified: Sendable, Equatable {
        /// The decoded protected header.
        public let header: Header
        /// The protected header's JSON exactly as signed.
        public let headerJSON: Data
        /// The verified payload bytes.
        public let payload: Data
    }

    /// Signs `payload` with ES256 and returns `header.payload.signature` (all base64url).
    /// The header JSON has sorted keys, e.g. `{"alg":"ES256","kid":"k1","typ":"JWT"}`.
    public static func sign(
        payload: Data,
        key: P256.PrivateKey,
        kid: String? = nil,
        typ: String? = nil,
        cty: String? = nil
    ) throws -> String {
        try sign(payload: payload, header: Header(alg: "ES256", typ: typ, kid: kid, cty: cty)) { try key.sign($0) }
    }

    /// Signs `payload` with RS256 (RSASSA-PKCS1-v1_5 SHA-256).
    public static func sign(payload: Data, rsaKey key: RSASigningKey, kid: String? = nil, typ: String? = nil) throws -> String {
        try sign(payload: payload, header: Header(alg: "RS256", typ: typ, kid: kid)) { try key.sign($0) }
    }

    private static func sign(payload: Data, header: Header, signer: ([UInt8]) throws -> [UInt8]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let headerJSON: Data
        do { headerJSON = try encoder.encode(header) } catch { throw CryptoError.malformedJWS("header encoding failed") }
        let signingInput = Base64URL.encode(headerJSON) + "." + Base64URL.encode(payload)
        let signature = try signer(Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// Verifies a compact RS256 JWS under `key` (an ES256 one is refused).
    public static func verify(_ compact: String, rsaKey key: RSASigningKey) throws -> Verified {
        let parts = try split(compact)
        let (header, headerJSON) = try decodeHeader(parts.header, allowing: ["RS256"])
        guard let signature = try? Base64URL.decode(parts.signature), let payload = try? Base64URL.decodeData(parts.payload) else {
            throw CryptoError.malformedJWS("signature or payload is not base64url")
        }
        let signingInput = Array(parts.header.utf8) + [UInt8(ascii: ".")] + Array(parts.payload.utf8)
        guard key.verify(signature: signature, message: signingInput) else { throw CryptoError.signatureVerificationFailed }
        return Verified(header: header, headerJSON: headerJSON, payload: payload)
    }

    /// Verifies a compact ES256 JWS under `key` and returns its header and payload.
    /// - Throws: `CryptoError.malformedJWS` (not three base64url segments, bad header JSON,
    ///   "crit" present), `.unsupportedAlgorithm` (alg is not ES256),
    ///   `.signatureVerificationFailed`.
    public static func verify(_ compact: String, key: P256.PublicKey) throws -> Verified {
        let parts = try split(compact)
        let (header, headerJSON) = try decodeHeader(parts.header)
        guard let signature = try? Base64URL.decode(parts.signature) else {
            throw CryptoError.malformedJWS("signature is not base64url")
        }
        guard signature.count == ECDSASignature.rawByteCount else {
            throw CryptoError.malformedJWS("ES256 signature must be 64 bytes, got \(signature.count)")
        }
        guard let payload = try? Base64URL.decodeData(parts.payload) else {
            throw CryptoError.malformedJWS("payload is not base64url")
        }
        let signingInput = Array(parts.header.utf8) + [UInt8(ascii: ".")] + Array(parts.payload.utf8)
        guard key.verify(signature: signature, message: signingInput) else {
            throw CryptoError.signatureVerificationFailed
        }
        return Verified(header: header, headerJSON: headerJSON, payload: payload)
    }

    /// Decodes the header without verifying anything, e.g. to pick a key by "kid".
    /// Never trust other content of an unverified JWS.
    public static func unverifiedHeader(_ compact: String) throws -> Header {
        try decodeHeader(split(compact).header, allowing: ["ES256", "RS256"]).0
    }

    private static func split(_ compact: String) throws -> (header: Substring, payload: Substring, signature: Substring) {
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw CryptoError.malformedJWS("expected 3 segments, got \(parts.count)")
        }
        guard !parts[0].isEmpty, !parts[2].isEmpty else {
            throw CryptoError.malformedJWS("empty header or signature segment")
        }
        return (parts[0], parts[1], parts[2])
    }

    private static func decodeHeader(_ segment: Substring, allowing algorithms: Set<String> = ["ES256"]) throws -> (Header, Data) {
        guard let json = try? Base64URL.decodeData(segment) else {
            throw CryptoError.malformedJWS("header is not base64url")
        }
        guard let header = try? JSONDecoder().decode(Header.self, from: json) else {
            throw CryptoError.malformedJWS("header is not a JSON object with a string alg")
        }
        guard algorithms.contains(header.alg) else { throw CryptoError.unsupportedAlgorithm(header.alg) }
        guard header.crit == nil else { throw CryptoError.malformedJWS("unsupported crit header") }
        return (header, json)
    }
}
