import Foundation

/// HKDF with HMAC-SHA-256 (RFC 5869).
public enum HKDF {
    /// The largest output RFC 5869 allows for SHA-256: 255 blocks of 32 bytes.
    public static let maximumOutputByteCount = 255 * HMACSHA256.byteCount

    /// Extract-then-expand: derives `outputByteCount` bytes from `inputKeyMaterial`.
    /// An empty `salt` means a salt of 32 zero bytes, as the RFC specifies.
    /// - Throws: `CryptoError.invalidOutputLength` unless 1 ≤ `outputByteCount` ≤ 8160.
    public static func deriveKey(
        inputKeyMaterial: [UInt8],
        salt: [UInt8] = [],
        info: [UInt8] = [],
        outputByteCount: Int
    ) throws -> [UInt8] {
        var prk = extract(salt: salt, inputKeyMaterial: inputKeyMaterial)
        defer { OpenSSL.cleanse(&prk) }
        return try expand(pseudoRandomKey: prk, info: info, outputByteCount: outputByteCount)
    }

    /// `deriveKey` for `Data` arguments.
    public static func deriveKey(inputKeyMaterial: Data, salt: Data = Data(), info: Data = Data(), outputByteCount: Int) throws -> Data {
        Data(try deriveKey(
            inputKeyMaterial: [UInt8](inputKeyMaterial), salt: [UInt8](salt), info: [UInt8](info),
            outputByteCount: outputByteCount))
    }

    /// HKDF-Extract: PRK = HMAC-SHA-256(salt, IKM).
    public static func extract(salt: [UInt8], inputKeyMaterial: [UInt8]) -> [UInt8] {
        let effectiveSalt = salt.isEmpty ? [UInt8](repeating: 0, count: HMACSHA256.byteCount) : salt
        return HMACSHA256.authenticate(key: effectiveSalt, message: inputKeyMaterial)
    }

    /// HKDF-Expand: T(1) | T(2) | … truncated to `outputByteCount`,
    /// where T(i) = HMAC-SHA-256(PRK, T(i-1) | info | i).
    public static func expand(pseudoRandomKey: [UInt8], info: [UInt8], outputByteCount: Int) throws -> [UInt8] {
        guard outputByteCount >= 1, outputByteCount <= maximumOutputByteCount else {
            throw CryptoError.invalidOutputLength(outputByteCount)
        }
        var output: [UInt8] = []
        output.reserveCapacity(outputByteCount + HMACSHA256.byteCount)
        var previous: [UInt8] = []
        var counter: UInt8 = 1
        while output.count < outputByteCount {
            previous = HMACSHA256.authenticate(key: pseudoRandomKey, message: previous + info + [counter])
            output += previous
            counter &+= 1
        }
        OpenSSL.cleanse(&previous)
        return Array(output.prefix(outputByteCount))
    }
}
