import Foundation

/// The shared attempt counter, for other factors (server biometrics) to count against.
extension IdentityService {
    public func attemptsLeft(userID: String) throws -> Int {
        try attempts.attemptsLeft(userID)
    }

    /// Counts a failed factor; when the attempts run out the user is locked (status 153).
    public func recordFailedAttempt(userID: String) throws -> AuthenticationOutcome {
        try fail(userID, user: try store.user(id: userID), now: clock.now())
    }

    /// Takes an attempt before a factor is judged (nil: none left, the answer is 153); give
    /// it back with `resetAttempts` on success, or conclude with `concludeFailedAttempt`.
    public func takeAttempt(userID: String) throws -> Int64? {
        try attempts.take(userID, now: clock.now())
    }

    /// The failure of a factor whose attempt `takeAttempt` took.
    public func concludeFailedAttempt(userID: String, used: Int64?) throws -> AuthenticationOutcome {
        try concludeFailure(userID, user: try store.user(id: userID), used: used, now: clock.now())
    }

    /// A factor succeeded: the count starts again.
    public func resetAttempts(userID: String) throws {
        try attempts.reset(userID)
    }
}
