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

    /// A factor succeeded: the count starts again.
    public func resetAttempts(userID: String) throws {
        try attempts.reset(userID)
    }
}
