import COpenSSL

/// Comparisons whose running time does not depend on where secret bytes differ.
public enum ConstantTime {
    /// Whether `a` and `b` hold the same bytes. Compares every byte with `CRYPTO_memcmp`;
    /// inputs of different lengths return false without looking at their content
    /// (lengths are treated as public).
    public static func equals(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        let left = Array(a)
        let right = Array(b)
        guard left.count == right.count else { return false }
        if left.isEmpty { return true }
        return left.withUnsafeBytes { l in
            right.withUnsafeBytes { r in
                CRYPTO_memcmp(l.baseAddress, r.baseAddress, l.count) == 0
            }
        }
    }

    /// Whether two strings have the same UTF-8 bytes, compared in constant time.
    public static func equals(_ a: String, _ b: String) -> Bool {
        equals(Array(a.utf8), Array(b.utf8))
    }
}
