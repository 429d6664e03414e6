import CustosCore
import CustosCrypto

/// The server's randomness is OpenSSL's CSPRNG.
extension SecureRandom: RandomSource {}

extension RandomSource {
    /// A random token of `byteCount` bytes encoded as unpadded base64url
    /// (32 bytes gives 43 characters and 256 bits of entropy).
    public func base64URLToken(byteCount: Int = 32) -> String {
        Base64URL.encode(bytes(count: byteCount))
    }
}
