import Foundation
#if canImport(CryptoKit) && !os(Linux)
import CryptoKit
#else
import CustosCrypto
#endif

/// The few primitives bound-device sign-in needs on the app's side: SHA-256, ES256 signatures
/// in DER (as WebAuthn carries them), and verifying the server's ES256 tokens. CryptoKit on
/// Apple platforms, OpenSSL (CustosCrypto) elsewhere.
enum SDKCrypto {
    static func sha256(_ data: Data) -> Data {
        #if canImport(CryptoKit) && !os(Linux)
        Data(SHA256.hash(data: data))
        #else
        SHA256.hash(data)
        #endif
    }

    /// An ES256 signature (raw r‖s) in ASN.1 DER.
    static func derSignature(raw: Data) throws -> Data {
        #if canImport(CryptoKit) && !os(Linux)
        try P256.Signing.ECDSASignature(rawRepresentation: raw).derRepresentation
        #else
        Data(try ECDSASignature.rawToDER([UInt8](raw)))
        #endif
    }

    /// Whether `signature` (raw r‖s) is the ES256 signature of `message` by the key (x, y).
    static func verifyES256(signature: Data, message: Data, x: Data, y: Data) -> Bool {
        #if canImport(CryptoKit) && !os(Linux)
        guard let key = try? P256.Signing.PublicKey(rawRepresentation: x + y),
              let parsed = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
        return key.isValidSignature(parsed, for: message)
        #else
        guard let key = try? P256.PublicKey(x: [UInt8](x), y: [UInt8](y)) else { return false }
        return key.verify(signature: signature, message: message)
        #endif
    }
}
