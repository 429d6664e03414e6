/// A cryptographically secure source of random bytes.
public protocol RandomSource: Sendable {
    /// Returns `count` random bytes. Implementations never return predictable output;
    /// they trap rather than degrade if the system generator fails.
    func bytes(count: Int) -> [UInt8]
}
