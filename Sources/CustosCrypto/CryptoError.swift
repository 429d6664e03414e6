/// Every failure CustosCrypto and the server's key code over it (CustosCryptoServices: Argon2id,
/// the master key) report. Cases carry only non-secret detail.
public enum CryptoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A symmetric key had an unsupported length (in bytes).
    case invalidKeySize(Int)
    /// An AES-GCM nonce was not 12 bytes.
    case invalidNonceSize(Int)
    /// An AES-GCM tag was not 16 bytes.
    case invalidTagSize(Int)
    /// A combined AES-GCM box was too short to hold a nonce and a tag.
    case invalidCiphertext
    /// An AEAD tag did not match: the ciphertext, nonce, AAD or key is wrong or was tampered with.
    case authenticationFailed
    /// A KDF was asked for an output length it cannot produce.
    case invalidOutputLength(Int)
    /// Text was not valid base64 / base64url.
    case invalidBase64
    /// An EC public key could not be used (wrong encoding, length or curve).
    case invalidPublicKey(String)
    /// The coordinates do not describe a point on P-256.
    case pointNotOnCurve
    /// An EC private key could not be used (wrong length, out of range, or mismatched public part).
    case invalidPrivateKey(String)
    /// An ECDSA signature was not a well-formed raw r||s or DER value.
    case invalidSignatureEncoding(String)
    /// A JWK named a key type other than "EC".
    case unsupportedKeyType(String)
    /// A JWK or key named a curve other than P-256.
    case unsupportedCurve(String)
    /// A JWS or JWK named an algorithm other than ES256.
    case unsupportedAlgorithm(String)
    /// A JWK was missing members or had members of the wrong size.
    case malformedJWK(String)
    /// A compact JWS was not three well-formed segments with a valid header.
    case malformedJWS(String)
    /// A JWS signature did not verify under the given key.
    case signatureVerificationFailed
    /// An encoded password hash (PHC string) could not be parsed.
    case malformedPasswordHash
    /// Argon2 cost parameters are out of range.
    case invalidCost(String)
    /// libargon2 returned an error code.
    case argon2Failure(code: Int32, message: String)
    /// A master key was not 32 bytes of valid base64.
    case invalidMasterKey(String)
    /// An OpenSSL call failed unexpectedly.
    case openSSLFailure(operation: String, detail: String)

    /// A one-line explanation without secret material.
    public var description: String {
        switch self {
        case .invalidKeySize(let n): return "invalid key size: \(n) bytes"
        case .invalidNonceSize(let n): return "invalid nonce size: \(n) bytes (expected 12)"
        case .invalidTagSize(let n): return "invalid tag size: \(n) bytes (expected 16)"
        case .invalidCiphertext: return "ciphertext too short"
        case .authenticationFailed: return "authentication failed"
        case .invalidOutputLength(let n): return "invalid output length: \(n)"
        case .invalidBase64: return "invalid base64 encoding"
        case .invalidPublicKey(let why): return "invalid public key: \(why)"
        case .pointNotOnCurve: return "point is not on the P-256 curve"
        case .invalidPrivateKey(let why): return "invalid private key: \(why)"
        case .invalidSignatureEncoding(let why): return "invalid signature encoding: \(why)"
        case .unsupportedKeyType(let kty): return "unsupported key type: \(kty)"
        case .unsupportedCurve(let crv): return "unsupported curve: \(crv)"
        case .unsupportedAlgorithm(let alg): return "unsupported algorithm: \(alg)"
        case .malformedJWK(let why): return "malformed JWK: \(why)"
        case .malformedJWS(let why): return "malformed JWS: \(why)"
        case .signatureVerificationFailed: return "signature verification failed"
        case .malformedPasswordHash: return "malformed password hash"
        case .invalidCost(let why): return "invalid Argon2 cost: \(why)"
        case .argon2Failure(let code, let message): return "argon2 error \(code): \(message)"
        case .invalidMasterKey(let why): return "invalid master key: \(why)"
        case .openSSLFailure(let op, let detail): return "OpenSSL \(op) failed: \(detail)"
        }
    }
}
