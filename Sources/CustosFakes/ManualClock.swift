import CustosCore
import Foundation

/// A clock that moves only when a test moves it, so an expiry is reached exactly, to the
/// millisecond, without sleeping.
public final class ManualClock: Clock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    /// Starts on a whole second, so stored dates (kept to the millisecond) compare equal.
    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        current = start
    }

    public func now() -> Date { lock.withLock { current } }

    public func advance(by seconds: TimeInterval) {
        lock.withLock { current = current.addingTimeInterval(seconds) }
    }
}
