import Foundation
import Synchronization

/// Counters in this process's memory, for what one node counts alone (rate limits on SQLite,
/// where there is no second node to share them with and a write per request would cost).
public final class MemoryCounters: CounterStore {
    private struct Counter {
        var value: Int64
        var lastIncrement: Date?
    }

    private let counters = Mutex<[String: Counter]>([:])

    public init() {}

    public func increment(_ key: String, limit: Int64, now: Date) throws -> Int64? {
        counters.withLock { counters in
            var counter = counters[key] ?? Counter(value: 0)
            guard counter.value < limit else { return nil }
            counter.value += 1
            counter.lastIncrement = now
            counters[key] = counter
            return counter.value
        }
    }

    public func value(_ key: String) throws -> Int64 { counters.withLock { $0[key]?.value ?? 0 } }

    public func lastIncrement(_ key: String) throws -> Date? { counters.withLock { $0[key]?.lastIncrement } }

    public func decrement(_ key: String) throws {
        counters.withLock { counters in
            if let value = counters[key]?.value, value > 0 { counters[key]?.value = value - 1 }
        }
    }

    public func reset(_ key: String) throws { counters.withLock { _ = $0.removeValue(forKey: key) } }

    @discardableResult
    public func purgeCounters(prefix: String, updatedBefore cutoff: Date) throws -> Int {
        counters.withLock { counters in
            let stale = counters.filter { $0.key.hasPrefix(prefix) && ($0.value.lastIncrement ?? .distantPast) < cutoff }.map(\.key)
            stale.forEach { counters.removeValue(forKey: $0) }
            return stale.count
        }
    }
}
