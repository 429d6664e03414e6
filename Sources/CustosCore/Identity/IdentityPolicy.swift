import Foundation

/// The rules identity enforces; every value is configuration.
public struct IdentityPolicy: Sendable, Equatable {
    /// When a device must give the password with its signature.
    public enum PasswordAtLogin: Sendable, Equatable {
        case always
        /// When this device's last password login is older than this many days.
        case everyDays(Int)
        /// Device signature alone (the password still guards activation and changes).
        case never
    }

    public var activationCodeLifetime: TimeInterval = 72 * 3600
    /// How long a registration code (a new device for an active user) stays usable.
    public var registrationCodeLifetime: TimeInterval = 24 * 3600
    /// Whether a new device may be bound with the user's password alone (the fallback of a
    /// sign-in on an unbound device). Off by default: a new device binds with a registration
    /// code or the approval of a device already bound. A device bound by the password proves
    /// only the password (`DeviceBinding.password`) until one of those confirms it.
    public var passwordRegistration = false
    /// Wrong passwords at password registration for one user, from every address together,
    /// before password registration closes for that user (403 `password_registration_closed`)
    /// until a registration code or an approval binds a device, or an administrator unlocks
    /// the user. The user's bound devices are never locked out by them.
    public var passwordRegistrationFailures: Int64 = 10
    /// Wrong activation codes tolerated per user from one client address within
    /// `lockoutBase`; more answer `activation_locked` to that address only.
    public var activationAttempts: Int64 = 5
    /// Wrong activation codes per user, from every address together, before the outstanding
    /// code is voided: only many sources together can void it (a 60-bit code is not guessed
    /// in 50 tries), not one stranger.
    public var activationAttemptsPerUser: Int64 = 50
    public var passwordMinimumLength = 8
    public var passwordMaximumLength = 128
    /// Logins after this age answer 110 until the password is changed; nil: never expires.
    public var passwordMaximumAge: TimeInterval? = 90 * 24 * 3600
    public var passwordAtLogin: PasswordAtLogin = .always
    /// Failed attempts (any factor) before the user is locked (status 153).
    public var maximumAttempts: Int64 = 5
    /// How long a device bound or confirmed without the approval of an already bound device
    /// (a registration code, a face match) is on probation: no password change, no unbinding or
    /// approving devices, no ending others' sessions, no face template change, no passkey.
    public var probation: TimeInterval = 72 * 3600
    /// How long (real time) a proof waits for an attempt while every attempt left is held by
    /// other tries of the same user being judged at that moment; then 429. Each of those gives
    /// its attempt back if it succeeds, so a right proof is never answered 153 for them.
    public var attemptWait: TimeInterval = 10
    /// How long an attempt taken for a try being judged is held for it at most: longer than any
    /// judgement takes (a password hash, a face analysis), so that a live try never loses it,
    /// and short enough that a process that died mid-try does not keep the user waiting
    /// (`attempts_in_flight`) or closer to a lock for long.
    public var attemptLease: TimeInterval = 120
    /// First lock lasts this long; each further lock twice as long, up to `lockoutCap`.
    public var lockoutBase: TimeInterval = 300
    public var lockoutCap: TimeInterval = 24 * 3600
    /// Failed device proofs (unknown device, bad signature) allowed per device id and client
    /// address, and per client address, within `lockoutBase`; more answer 429. They never
    /// count against the user.
    public var deviceProofAttempts: Int64 = 5
    public var clientProofAttempts: Int64 = 50
    public var loginNonceLifetime: TimeInterval = 60
    public var passwordChangeTokenLifetime: TimeInterval = 600
    public var sessionIdleTimeout: TimeInterval = 30 * 60
    public var sessionLifetime: TimeInterval = 12 * 3600

    public init() {}

    /// How long the `count`-th lock (0-based) lasts.
    public func lockDuration(afterLocks count: Int) -> TimeInterval {
        min(lockoutCap, lockoutBase * pow(2, Double(min(count, 30))))
    }

    public func passwordRequired(for device: Device?, at now: Date) -> Bool {
        switch passwordAtLogin {
        case .always: return true
        case .never: return device == nil
        case .everyDays(let days):
            guard let device, let verified = device.passwordVerifiedAt else { return true }
            return now.timeIntervalSince(verified) >= Double(days) * 86400
        }
    }

    public func passwordExpired(_ user: User, at now: Date) -> Bool {
        if user.passwordMustChange, user.passwordHash != nil { return true }
        guard let maximumAge = passwordMaximumAge, let changed = user.passwordChangedAt else { return false }
        return now.timeIntervalSince(changed) >= maximumAge
    }

    /// Nil when `password` is acceptable for `userID`, else the reason. Its length is counted in
    /// Unicode code points, as NIST SP 800-63B §5.1.1.2 asks and `openapi.yaml`'s lengths count.
    public func passwordProblem(_ password: String, userID: String) -> String? {
        let length = password.unicodeScalars.count
        if length < passwordMinimumLength { return "it must have at least \(passwordMinimumLength) characters" }
        if length > passwordMaximumLength { return "it must have at most \(passwordMaximumLength) characters" }
        if password.lowercased() == userID.lowercased() { return "it must not be the user id" }
        return nil
    }
}
