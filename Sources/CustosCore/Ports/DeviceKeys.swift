import Foundation

/// A device's P-256 public key as JWK coordinates (base64url, 32 bytes each).
public struct DevicePublicKey: Equatable, Sendable {
    public var x: String
    public var y: String
    public init(x: String, y: String) {
        self.x = x
        self.y = y
    }

    /// The stored form: the canonical JWK JSON object.
    public var jwkJSON: String { #"{"crv":"P-256","kty":"EC","x":"\#(x)","y":"\#(y)"}"# }
}

/// Checks device keys and their signatures (ECDSA P-256 / ES256).
public protocol DeviceKeyVerifier: Sendable {
    /// Validates the key (on the curve) and returns its RFC 7638 thumbprint.
    /// Throws `IdentityError.invalidDeviceKey` when it is not a usable P-256 key.
    func thumbprint(of key: DevicePublicKey) throws -> String
    /// Whether `signature` (raw r‖s, 64 bytes) is the key's signature of `message`.
    func verify(signature: [UInt8], message: [UInt8], key: DevicePublicKey) -> Bool
    /// Whether `derSignature` (ASN.1 DER, as WebAuthn authenticators sign) is the key's ES256
    /// signature of `message`.
    func verify(derSignature: [UInt8], message: [UInt8], key: DevicePublicKey) -> Bool
    /// Reads back a stored `jwkJSON`.
    func parse(jwkJSON: String) throws -> DevicePublicKey
}

/// SHA-256 of secrets (tokens, codes, keys) so that only digests are stored, and of content
/// (frames, audit events) to recognise it again.
public protocol SecretDigester: Sendable {
    func digest(_ secret: String) -> Data
    func digest(bytes: Data) -> Data
}
