import Foundation

/// The shared attempt counter, for other factors (server biometrics) to count against.
extension IdentityService {
    public func attemptsLeft(userID: String) throws -> Int {
        try attempts.attemptsLeft(userID)
    }

    /// Takes one of the user's attempts before another factor (a face) is judged, so parallel
    /// tries cannot be judged more often than the attempts allow; nil when none is left. Follow
    /// it with `resetAttempts` (the factor succeeded), `giveBackAttempt` (nothing was judged)
    /// or `concludeFailedAttempt` (it failed).
    public func takeAttempt(userID: String) throws -> Int64? {
        try attempts.take(userID, now: clock.now())
    }

    /// Returns an attempt taken for a factor that was not judged after all.
    public func giveBackAttempt(userID: String) throws {
        try attempts.giveBack(userID)
    }

    /// The factor an attempt was taken for failed (`used`: what `takeAttempt` returned); the
    /// user is locked when it was the last.
    public func concludeFailedAttempt(userID: String, used: Int64?) throws -> AuthenticationOutcome {
        try concludeFailure(userID, user: try store.user(id: userID), used: used, now: clock.now())
    }

    /// A factor succeeded: the count starts again.
    public func resetAttempts(userID: String) throws {
        try attempts.reset(userID)
    }
}
