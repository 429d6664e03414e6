import COpenSSL

/// Random bytes from OpenSSL's CSPRNG (`RAND_bytes`).
///
/// Traps if the generator fails: continuing with predictable output is never acceptable.
public struct SecureRandom: Sendable {
    /// The generator; it holds no state of its own.
    public init() {}

    /// Returns `count` cryptographically secure random bytes.
    public func bytes(count: Int) -> [UInt8] {
        precondition(count >= 0, "negative byte count")
        var out = [UInt8](repeating: 0, count: count)
        var offset = 0
        while offset < count {
            let chunk = min(count - offset, Int(Int32.max))
            let status = out.withUnsafeMutableBufferPointer { buffer -> Int32 in
                guard let base = buffer.baseAddress else { return 0 }
                return RAND_bytes(base + offset, Int32(chunk))
            }
            guard status == 1 else {
                fatalError("RAND_bytes failed: \(OpenSSL.errorDetail())")
            }
            offset += chunk
        }
        return out
    }
}
