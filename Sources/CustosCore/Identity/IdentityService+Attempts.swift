import Foundation

/// The attempt counters, for the factors judged outside `IdentityService` to count against:
/// server biometrics (`.biometric`) and the notifications' device signatures (`.credentials`).
extension IdentityService {
    public func attemptsLeft(userID: String, factor: AttemptFactor) throws -> Int {
        try counter(factor).attemptsLeft(userID)
    }

    /// Takes one of the user's attempts before a factor is judged, so parallel tries cannot be
    /// judged more often than the attempts allow; nil when none is left. Follow it with
    /// `resetAttempts` (the factor succeeded), `giveBackAttempt` (nothing was judged) or
    /// `concludeFailedAttempt` (it failed).
    public func takeAttempt(userID: String, factor: AttemptFactor) throws -> Int64? {
        try counter(factor).take(userID, now: clock.now())
    }

    /// Returns an attempt taken for a factor that was not judged after all.
    public func giveBackAttempt(userID: String, factor: AttemptFactor) throws {
        try counter(factor).giveBack(userID)
    }

    /// The factor an attempt was taken for failed (`used`: what `takeAttempt` returned); the
    /// user is locked when it was the last.
    public func concludeFailedAttempt(userID: String, used: Int64?, factor: AttemptFactor) throws -> AuthenticationOutcome {
        try concludeFailure(userID, user: try store.user(id: userID), used: used, now: clock.now(), factor: factor)
    }

    /// The factor succeeded: its count starts again (the other factor's does not).
    public func resetAttempts(userID: String, factor: AttemptFactor) throws {
        try counter(factor).reset(userID)
    }
}
