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

    /// Takes one of the user's attempts before a factor is judged, waiting for one when all that
    /// are left are held by tries of this user being judged right now: each of those gives its
    /// attempt back when it succeeds, or locks the user when it uses the last. Nil only when the
    /// user is locked (or unknown); 429 (`attemptsInFlight`) when none came free within
    /// `policy.attemptWait`. So parallel tries never judge more proofs than the limit, and a
    /// right proof is answered 153 only when the user really is locked. Not inside a database
    /// transaction: the tries it waits for must be able to write their outcome.
    public func awaitAttempt(userID: String, factor: AttemptFactor) throws -> Int64? {
        let counter = counter(factor)
        return try untilDecided {
            if let used = try counter.take(userID, now: clock.now()) { return .decided(used) }
            guard let user = try store.user(id: userID), !user.isLocked(at: clock.now()) else { return .decided(nil) }
            // Full, and no try in flight holds any of it: the attempts are spent (their lock was
            // never written), so the user is locked now rather than kept waiting for ever.
            if try counter.isSpent(userID, now: clock.now()) {
                try lockForSpentAttempts(userID, now: clock.now())
                return .decided(nil)
            }
            return .wait
        }
    }

    /// What one look at a count held by tries in flight found.
    enum InFlightStep<T> {
        /// The answer.
        case decided(T)
        /// Look again at once.
        case again
        /// Tries in flight may still change it: look again after a pause.
        case wait
    }

    /// Calls `look` until it decides, pausing 2 ms, doubling to 50 ms, between looks that ask to
    /// wait; 429 (`attemptsInFlight`) when `policy.attemptWait` went by undecided.
    func untilDecided<T>(_ look: () throws -> InFlightStep<T>) throws -> T {
        let deadline = ContinuousClock.now.advanced(by: .seconds(policy.attemptWait))
        var pause = 0.002
        while true {
            switch try look() {
            case .decided(let answer): return answer
            case .again: continue
            case .wait:
                guard ContinuousClock.now < deadline else { throw IdentityError.attemptsInFlight }
                Thread.sleep(forTimeInterval: pause)
                pause = min(pause * 2, 0.05)
            }
        }
    }

    /// Returns an attempt taken for a factor that was not judged after all.
    public func giveBackAttempt(userID: String, factor: AttemptFactor) throws {
        try counter(factor).giveBack(userID, now: clock.now())
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

    /// The counter of the tries of the user's devices bound by the password alone at confirming
    /// themselves with the user's face (workflow 8): such a device proves nothing about the user,
    /// so its failures spend these tries, never the user's biometric attempts (it must not be
    /// able to lock the user out). One count for all of them, so binding another device with
    /// the same phished password buys no more tries; a lock's end or an unlock refills it. It
    /// ends in `:<user id>`, so deleting the user deletes it.
    static func unconfirmedFaceTriesKey(_ userID: String) -> String { unconfirmedFaceTriesPrefix + userID }

    /// The prefix of those counts; housekeeping sweeps one a day without a try (as password
    /// registration's), so a phished password buys five tries a day at most.
    public static let unconfirmedFaceTriesPrefix = "unconfirmed_face_tries:"

    /// Takes one of those tries before a capture is judged (or a challenge is abandoned); nil
    /// when none is left.
    public func takeUnconfirmedFaceTry(userID: String) throws -> Int64? {
        let now = clock.now()
        return try store.takeLease(Self.unconfirmedFaceTriesKey(userID), limit: policy.maximumAttempts, now: now,
                                   expiresAt: now.addingTimeInterval(policy.attemptLease))
    }

    /// A try of such a device was judged (`used`: what `takeUnconfirmedFaceTry` returned): it
    /// stays counted, its lease ends.
    public func keepUnconfirmedFaceTry(userID: String, used: Int64?) throws {
        if used != nil { try store.endLease(Self.unconfirmedFaceTriesKey(userID), keepingCount: true, now: clock.now()) }
    }

    public func giveBackUnconfirmedFaceTry(userID: String) throws {
        try store.endLease(Self.unconfirmedFaceTriesKey(userID), keepingCount: false, now: clock.now())
    }

    public func unconfirmedFaceTriesLeft(userID: String) throws -> Int {
        Int(max(0, policy.maximumAttempts - (try store.value(Self.unconfirmedFaceTriesKey(userID)))))
    }

    /// A try of `deviceID` (bound by the password alone) failed or was abandoned (`used`: what
    /// `takeUnconfirmedFaceTry` returned; nil, none was left): the tries left; the last one
    /// unbinds the device. The user is never locked by it.
    public func concludeUnconfirmedFaceTry(deviceID: String, userID: String, used: Int64?) throws -> Int {
        try keepUnconfirmedFaceTry(userID: userID, used: used)
        let left = used.map { Int(max(0, policy.maximumAttempts - $0)) } ?? 0
        if left == 0 { try revokeDevice(userID: userID, deviceID: deviceID, actor: AuditActor.policy, reason: "its face tries ran out") }
        return left
    }

    /// Whose attempts a capture sent from `deviceID`'s session for `workflow` spends. A device
    /// the password alone bound may only try to confirm itself (workflow 8), on its own tries;
    /// the other workflows, which spend the user's biometric attempts (6, 7, 9, 10), are refused it.
    public func biometricAttemptHolder(deviceID: String?, workflow: IDVWorkflow) throws -> BiometricAttemptHolder {
        guard let deviceID, let device = try store.device(id: deviceID), device.boundBy == .password else { return .user }
        switch workflow {
        case .serverBiometricAuthentication: return .unconfirmedDevice(deviceID)
        case .kyc, .biometricOptIn, .additionalDocumentScan, .notificationStepUp: throw IdentityError.deviceNotConfirmed
        }
    }
}

/// Whose attempts a biometric capture spends.
public enum BiometricAttemptHolder: Equatable, Sendable {
    /// The user's biometric attempts (the last one used locks the user).
    case user
    /// The tries of a device the password alone bound at confirming itself by a face match
    /// (the last one used unbinds the device; the user is not locked).
    case unconfirmedDevice(String)
}
