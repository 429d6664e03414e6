import CustosAPI

/// A cryptographically secure source of random bytes.
public protocol RandomSource: Sendable {
    /// Returns `count` random bytes. Implementations never return predictable output;
    /// they trap rather than degrade if the system generator fails.
    func bytes(count: Int) -> [UInt8]
}

extension RandomSource {
    /// `count` random bytes in lower-case hexadecimal: ids that reveal nothing.
    public func hexID(bytes count: Int) -> String { Hex.encode(bytes(count: count)) }
}
