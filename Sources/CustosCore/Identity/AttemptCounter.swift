import Foundation

/// One failed-attempt counter per user, shared by every factor (password, device signature,
/// and biometrics later). Counts change atomically in the database.
public struct AttemptCounter: Sendable {
    let counters: any CounterStore
    public let maximum: Int64

    public init(counters: any CounterStore, maximum: Int64) {
        self.counters = counters
        self.maximum = maximum
    }

    /// Counter keys end in `:<user id>` so deleting a user deletes them.
    static func key(_ userID: String) -> String { "attempts:" + userID }

    public func attemptsLeft(_ userID: String) throws -> Int {
        Int(max(0, maximum - (try counters.value(Self.key(userID)))))
    }

    /// Records a failure; returns the attempts left afterwards (0: exhausted).
    public func recordFailure(_ userID: String, now: Date) throws -> Int {
        guard let used = try counters.increment(Self.key(userID), limit: maximum, now: now) else { return 0 }
        return Int(max(0, maximum - used))
    }

    public func reset(_ userID: String) throws {
        try counters.reset(Self.key(userID))
    }
}
