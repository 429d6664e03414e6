import Foundation

/// Times are stored (in both SQL dialects) and hashed (in audit events) as `Int64`
/// milliseconds since 1970-01-01T00:00:00Z; one conversion serves both, so a hashed time always
/// equals the stored one.
///
/// Conversion rounds to the nearest millisecond (a `Date` built from milliseconds, like
/// `1_700_000_000.001`, is not exact in binary and may sit just below its millisecond, so
/// flooring would lose it) and clamps dates outside the `Int64` range (and NaN to 0) instead of
/// trapping. A stored date therefore comes back without its sub-millisecond part.
public enum StoredTime {
    public static func milliseconds(_ date: Date) -> Int64 {
        let ms = (date.timeIntervalSince1970 * 1000).rounded(.toNearestOrAwayFromZero)
        guard !ms.isNaN else { return 0 }
        // Double(Int64.max) rounds up to 2^63, so compare with >= to stay in range.
        if ms >= Double(Int64.max) { return Int64.max }
        if ms <= Double(Int64.min) { return Int64.min }
        return Int64(ms)
    }

    public static func date(fromMilliseconds ms: Int64) -> Date {
        Date(timeIntervalSince1970: Double(ms) / 1000)
    }

    /// `date` as it reads back from a store.
    public static func rounded(_ date: Date) -> Date {
        Self.date(fromMilliseconds: milliseconds(date))
    }
}
