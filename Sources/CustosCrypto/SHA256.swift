import COpenSSL
import Foundation

/// SHA-256 (FIPS 180-4).
public enum SHA256 {
    /// Digest size in bytes.
    public static let byteCount = 32

    /// The SHA-256 digest of `data`.
    public static func hash(_ data: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: byteCount)
        var length: UInt32 = 0
        let status = data.withNonNullBytes { input, count in
            digest.withUnsafeMutableBufferPointer { out in
                EVP_Digest(input, count, out.baseAddress, &length, EVP_sha256(), nil)
            }
        }
        // SHA-256 over memory cannot fail short of library corruption.
        precondition(status == 1 && length == UInt32(byteCount), "EVP_Digest(SHA-256) failed")
        return digest
    }

    /// The SHA-256 digest of `data`.
    public static func hash(_ data: Data) -> Data {
        Data(hash([UInt8](data)))
    }

    /// The SHA-256 digest of the UTF-8 bytes of `string`.
    public static func hash(utf8 string: String) -> [UInt8] {
        hash(Array(string.utf8))
    }
}
