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

    /// A uniformly random integer in `0..<count` (1 ≤ `count` ≤ 256; rejection sampling, no
    /// modulo bias).
    public func uniform(below count: Int) -> Int {
        precondition((1...256).contains(count), "uniform(below:) draws from one byte")
        let limit = 256 - 256 % count
        while true {
            let byte = Int(bytes(count: 1)[0])
            if byte < limit { return byte % count }
        }
    }
}
