/// ECDSA over NIST P-256 (secp256r1 / prime256v1) with SHA-256, as used by ES256 and WebAuthn.
public enum P256 {
    /// Size in bytes of one coordinate, of the private scalar, and of r and s.
    public static let coordinateByteCount = 32
    /// Size of an uncompressed X9.63 point: 0x04 || x || y.
    public static let x963ByteCount = 65
}
