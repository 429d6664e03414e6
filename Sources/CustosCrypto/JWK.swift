import Foundation

/// A JSON Web Key (RFC 7517) for EC P-256 keys (RFC 7518 section 6.2).
///
/// Decoding is lenient about members so a JWK Set with other key types can be read;
/// converting to a key (`p256PublicKey()`, `p256PrivateKey()`) validates strictly.
public struct JWK: Codable, Sendable, Equatable {
    /// Key type; "EC" for the keys this module uses.
    public var kty: String
    /// Curve; "P-256".
    public var crv: String?
    /// Base64url x coordinate (32 bytes).
    public var x: String?
    /// Base64url y coordinate (32 bytes).
    public var y: String?
    /// Base64url private scalar (32 bytes); present only in private JWKs.
    public var d: String?
    /// Key identifier.
    public var kid: String?
    /// Intended use, "sig" for signing keys.
    public var use: String?
    /// Algorithm, "ES256" (or "RS256" for an RSA key).
    public var alg: String?
    /// Base64url RSA modulus (RSA keys only).
    public var n: String?
    /// Base64url RSA public exponent (RSA keys only).
    public var e: String?

    /// A JWK with the given members, unvalidated.
    public init(
        kty: String, crv: String? = nil, x: String? = nil, y: String? = nil, d: String? = nil,
        kid: String? = nil, use: String? = nil, alg: String? = nil
    ) {
        self.kty = kty
        self.crv = crv
        self.x = x
        self.y = y
        self.d = d
        self.kid = kid
        self.use = use
        self.alg = alg
    }

    /// The public JWK of `publicKey`.
    public init(publicKey: P256.PublicKey, kid: String? = nil, use: String? = "sig", alg: String? = "ES256") {
        self.init(
            kty: "EC", crv: "P-256",
            x: Base64URL.encode(publicKey.x), y: Base64URL.encode(publicKey.y),
            kid: kid, use: use, alg: alg)
    }

    /// The private JWK of `privateKey` (includes "d": handle as a secret).
    public init(privateKey: P256.PrivateKey, kid: String? = nil, use: String? = "sig", alg: String? = "ES256") throws {
        self.init(publicKey: privateKey.publicKey, kid: kid, use: use, alg: alg)
        var scalar = try privateKey.rawRepresentation
        defer { OpenSSL.cleanse(&scalar) }
        self.d = Base64URL.encode(scalar)
    }

    /// This JWK without the private member "d".
    public var publicJWK: JWK {
        var copy = self
        copy.d = nil
        return copy
    }

    /// Imports the public key after checking kty "EC", crv "P-256", alg (if present) "ES256",
    /// 32-byte coordinates and that the point lies on the curve.
    /// - Throws: `CryptoError.unsupportedKeyType`, `.unsupportedCurve`, `.unsupportedAlgorithm`,
    ///   `.malformedJWK`, `.pointNotOnCurve`, `.invalidPublicKey`.
    public func p256PublicKey() throws -> P256.PublicKey {
        guard kty == "EC" else { throw CryptoError.unsupportedKeyType(kty) }
        guard let crv else { throw CryptoError.malformedJWK("missing crv") }
        guard crv == "P-256" else { throw CryptoError.unsupportedCurve(crv) }
        if let alg, alg != "ES256" { throw CryptoError.unsupportedAlgorithm(alg) }
        let xBytes = try Self.coordinate(x, name: "x")
        let yBytes = try Self.coordinate(y, name: "y")
        return try P256.PublicKey(x: xBytes, y: yBytes)
    }

    /// Imports the private key, checking everything `p256PublicKey()` checks and that
    /// "d" is a valid scalar whose public point equals (x, y).
    /// - Throws: as `p256PublicKey()`, plus `.malformedJWK` without "d" and `.invalidPrivateKey`.
    public func p256PrivateKey() throws -> P256.PrivateKey {
        let publicKey = try p256PublicKey()
        guard let d else { throw CryptoError.malformedJWK("missing d") }
        guard var scalar = try? Base64URL.decode(d) else { throw CryptoError.malformedJWK("d is not base64url") }
        defer { OpenSSL.cleanse(&scalar) }
        guard scalar.count == P256.coordinateByteCount else {
            throw CryptoError.malformedJWK("d must be 32 bytes, got \(scalar.count)")
        }
        let privateKey = try P256.PrivateKey(rawRepresentation: scalar)
        guard privateKey.publicKey == publicKey else {
            throw CryptoError.invalidPrivateKey("d does not match x and y")
        }
        return privateKey
    }

    /// The RFC 7638 thumbprint input: `{"crv":…,"kty":"EC","x":…,"y":…}` with members in
    /// lexicographic order and no whitespace, built from the validated key.
    public func thumbprintInput() throws -> String {
        let key = try p256PublicKey()
        return #"{"crv":"P-256","kty":"EC","x":""# + Base64URL.encode(key.x) + #"","y":""# + Base64URL.encode(key.y) + #""}"#
    }

    /// The RFC 7638 JWK thumbprint: base64url(SHA-256(thumbprint input)).
    public func thumbprint() throws -> String {
        Base64URL.encode(SHA256.hash(Array(try thumbprintInput().utf8)))
    }

    private static func coordinate(_ value: String?, name: String) throws -> [UInt8] {
        guard let value else { throw CryptoError.malformedJWK("missing \(name)") }
        guard let bytes = try? Base64URL.decode(value) else {
            throw CryptoError.malformedJWK("\(name) is not base64url")
        }
        guard bytes.count == P256.coordinateByteCount else {
            throw CryptoError.malformedJWK("\(name) must be 32 bytes, got \(bytes.count)")
        }
        return bytes
    }
}

/// A JWK Set (RFC 7517 section 5).
public struct JWKSet: Codable, Sendable, Equatable {
    /// The keys, in document order.
    public var keys: [JWK]

    /// A set holding `keys`.
    public init(keys: [JWK]) {
        self.keys = keys
    }

    /// The first key whose "kid" equals `kid`.
    public func key(withID kid: String) -> JWK? {
        keys.first { $0.kid == kid }
    }
}
