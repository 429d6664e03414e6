import CustosAPI
import Foundation

extension IdentityService {
    /// The password of a signed-in user as a step-up (challenge mode 3, a notification action of
    /// level 1): one of the user's shared attempts, taken before the hash is judged; 401 with the
    /// attempts left when wrong, 153 and the lock at the last; 110 when right but expired.
    public func verifyStepUpPassword(userID: String, password: String) throws -> AuthenticationOutcome {
        try InputRules.checkPasswordLength(password, field: "password")
        let now = clock.now()
        let user = try requireUser(userID)
        if user.isLocked(at: now) { return try concludeFailure(userID, user: user, used: nil, now: now) }
        guard let used = try awaitAttempt(userID: userID, factor: .credentials) else {
            return try concludeFailure(userID, user: user, used: nil, now: now)
        }
        let verified = try hasher.verify(password, encoded: user.passwordHash ?? dummyPasswordHash)
        guard verified, user.passwordHash != nil, user.status == .active else {
            return try concludeFailure(userID, user: user, used: used, now: now)
        }
        try attempts.reset(userID)
        if policy.passwordExpired(user, at: now) {
            return AuthenticationOutcome(status: .passwordExpired, userID: userID, attemptsLeft: Int(policy.maximumAttempts))
        }
        return AuthenticationOutcome(status: .success, userID: userID, attemptsLeft: Int(policy.maximumAttempts))
    }
}
