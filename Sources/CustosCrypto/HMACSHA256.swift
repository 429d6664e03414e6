import COpenSSL
import Foundation

/// HMAC with SHA-256 (RFC 2104), via OpenSSL's one-shot `HMAC()`.
public enum HMACSHA256 {
    /// Authentication code size in bytes.
    public static let byteCount = 32

    /// The HMAC-SHA-256 of `message` under `key` (any key length).
    public static func authenticate(key: [UInt8], message: [UInt8]) -> [UInt8] {
        precondition(key.count <= Int(Int32.max), "HMAC key too long")
        var mac = [UInt8](repeating: 0, count: byteCount)
        var length: UInt32 = 0
        let result = key.withNonNullBytes { keyPointer, keyCount in
            message.withNonNullBytes { messagePointer, messageCount in
                mac.withUnsafeMutableBufferPointer { out in
                    HMAC(EVP_sha256(), keyPointer, Int32(keyCount), messagePointer, messageCount, out.baseAddress, &length)
                }
            }
        }
        precondition(result != nil && length == UInt32(byteCount), "HMAC(SHA-256) failed: \(OpenSSL.errorDetail())")
        return mac
    }

    /// The HMAC-SHA-256 of `message` under `key`.
    public static func authenticate(key: Data, message: Data) -> Data {
        Data(authenticate(key: [UInt8](key), message: [UInt8](message)))
    }

    /// Whether `code` is the HMAC-SHA-256 of `message` under `key`, compared in constant time.
    public static func isValid(_ code: [UInt8], key: [UInt8], message: [UInt8]) -> Bool {
        ConstantTime.equals(authenticate(key: key, message: message), code)
    }
}
