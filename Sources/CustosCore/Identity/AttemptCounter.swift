import Foundation

/// The factors whose failures count apart: what a sign-in proves (the password, the bound
/// device's signature) resets only its own counter, so that a sign-in cannot refill the
/// attempts at the face.
public enum AttemptFactor: String, Sendable, CaseIterable {
    /// The password and the bound device's signatures (logins, levels 1 and 3, password change).
    case credentials
    /// Server face biometrics (workflows 6, 7, 8, 9 and 10); only a biometric success or an
    /// unlock resets it.
    case biometric

    /// Counter keys end in `:<user id>` so deleting a user deletes them.
    func key(_ userID: String) -> String {
        switch self {
        case .credentials: "attempts:" + userID
        case .biometric: "biometric_attempts:" + userID
        }
    }
}

/// One failed-attempt counter per user and factor. Counts change atomically in the database;
/// whichever counter runs out locks the user. An attempt taken for a try being judged is a lease
/// (`lease` long): a process that dies before it concludes the try does not keep it, so what a
/// crash held comes back by itself, on every node.
public struct AttemptCounter: Sendable {
    let counters: any CounterLeaseStore
    public let maximum: Int64
    public let factor: AttemptFactor
    public let lease: TimeInterval

    public init(counters: any CounterLeaseStore, maximum: Int64, factor: AttemptFactor, lease: TimeInterval) {
        self.counters = counters
        self.maximum = maximum
        self.factor = factor
        self.lease = lease
    }

    func key(_ userID: String) -> String { factor.key(userID) }

    public func attemptsLeft(_ userID: String) throws -> Int {
        Int(max(0, maximum - (try counters.value(key(userID)))))
    }

    /// Takes one attempt before a credential is judged, so that parallel requests cannot
    /// judge more than the limit: the attempts used counting this one, or nil when none was
    /// left. The try then ends its lease: a success with `reset`, a failure with
    /// `concludeFailed`, a try not judged with `giveBack`.
    public func take(_ userID: String, now: Date) throws -> Int64? {
        try counters.takeLease(key(userID), limit: maximum, now: now, expiresAt: now.addingTimeInterval(lease))
    }

    /// The try an attempt was taken for failed: the attempt stays used, its lease ends. When its
    /// lease had expired meanwhile, the failure is counted again and this returns the failures
    /// settled (the count less what tries in flight hold): the count its take saw is stale.
    public func concludeFailed(_ userID: String, now: Date) throws -> Int64? {
        guard let count = try counters.endLease(key(userID), keepingCount: true, now: now) else { return nil }
        return count - Int64(try counters.liveLeases(key(userID), now: now))
    }

    /// Whether the user's attempts are all used with no try being judged holding any of them.
    func isSpent(_ userID: String, now: Date) throws -> Bool {
        try counters.isSpent(key(userID), limit: maximum, now: now)
    }

    /// The attempts left once `used` are used.
    public func left(afterUsing used: Int64) -> Int {
        Int(max(0, maximum - used))
    }

    /// Returns one attempt taken for a try that was not judged.
    public func giveBack(_ userID: String, now: Date) throws {
        try counters.endLease(key(userID), keepingCount: false, now: now)
    }

    public func reset(_ userID: String) throws {
        try counters.reset(key(userID))
    }
}
