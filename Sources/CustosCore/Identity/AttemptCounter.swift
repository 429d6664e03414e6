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

    /// Takes one attempt before a credential is judged, so that parallel requests cannot
    /// judge more than the limit: the attempts used counting this one, or nil when none was
    /// left. A success gives it back with `reset`.
    public func take(_ userID: String, now: Date) throws -> Int64? {
        try counters.increment(Self.key(userID), limit: maximum, now: now)
    }

    /// The attempts left once `used` are used.
    public func left(afterUsing used: Int64) -> Int {
        Int(max(0, maximum - used))
    }

    /// Returns one attempt taken for a try that was not judged.
    public func giveBack(_ userID: String) throws {
        try counters.decrement(Self.key(userID))
    }

    public func reset(_ userID: String) throws {
        try counters.reset(Self.key(userID))
    }
}
