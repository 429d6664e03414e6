import CustosAPI
import Foundation

/// Users, activation with device binding, login, passwords, sessions and lockout.
///
/// Every method is synchronous and thread-safe; state lives in the store, where single-use
/// codes, nonces and counters change atomically.
public final class IdentityService: Sendable {
    public typealias Storage = IdentityStore & SingleUseTokenStore & CounterLeaseStore & AtomicStore & GrantRevocationStore

    let store: any Storage
    let hasher: any PasswordHasher
    let keys: any DeviceKeyVerifier
    let digester: any SecretDigester
    let random: any RandomSource
    let clock: any Clock
    public let policy: IdentityPolicy
    /// Failed passwords and device signatures.
    let attempts: AttemptCounter
    /// Failed face matches and liveness checks, apart: a sign-in does not refill them.
    let biometricAttempts: AttemptCounter
    /// Where failed device proofs count instead of the user's attempts.
    let throttle: LoginThrottle
    /// Where lockouts are recorded.
    let audit: AuditTrail?
    /// Tells the relying parties' Shared Signals streams what ended or changed.
    public let signals: SecurityEventTransmitter?
    /// A hash of a random password, verified against when the user is unknown so that an
    /// unknown user costs the same time as a wrong password.
    let dummyPasswordHash: String
    /// A valid P-256 public key (the curve's generator, whose private key is 1) that a signature
    /// is checked against when the device is unknown, revoked or another user's, so that such a
    /// login costs the same time as a wrong signature of a real device. Such a check never
    /// proves anything: its outcome is ignored.
    static let dummyDeviceJWK = #"{"kty":"EC","crv":"P-256","x":"axfR8uEsQkf4vOblY6RA8ncDfYEt6zOg9KE5RdiYwpY","y":"T-NC4v4af5uO5-tKfA-eFivOM1drMV7Oy7ZAaDe_UfU"}"#

    enum Purpose {
        static let activation = "activation"
        static let loginNonce = "login_nonce"
        static let passwordChange = "password_change"
        static let deviceRegistration = "device_registration"
        static let passkeyLogin = "passkey_login"
    }

    public init(store: any Storage, hasher: any PasswordHasher, keys: any DeviceKeyVerifier, digester: any SecretDigester,
                random: any RandomSource, clock: any Clock, policy: IdentityPolicy, audit: AuditTrail? = nil,
                signals: SecurityEventTransmitter? = nil) throws {
        self.signals = signals
        self.store = store
        self.hasher = hasher
        self.keys = keys
        self.digester = digester
        self.random = random
        self.clock = clock
        self.policy = policy
        self.audit = audit
        attempts = AttemptCounter(counters: store, maximum: policy.maximumAttempts, factor: .credentials, lease: policy.attemptLease)
        biometricAttempts = AttemptCounter(counters: store, maximum: policy.maximumAttempts, factor: .biometric, lease: policy.attemptLease)
        throttle = LoginThrottle(counters: store, perDevice: policy.deviceProofAttempts, perClient: policy.clientProofAttempts,
                                 window: policy.lockoutBase)
        dummyPasswordHash = try hasher.hash(Self.token(random, bytes: 24))
    }

    // MARK: Shared helpers

    /// A random token, base64url without padding.
    static func token(_ random: any RandomSource, bytes: Int) -> String {
        Data(random.bytes(count: bytes)).base64URLEncodedString
    }

    func newID() -> String {
        random.hexID(bytes: 16)
    }

    func requireUser(_ id: String) throws -> User {
        try InputRules.checkUserID(id)
        guard let user = try store.user(id: id) else { throw IdentityError.userNotFound }
        return user
    }

    /// Issues a session for a device that just proved itself.
    func openSession(userID: String, deviceID: String, now: Date) throws -> (Session, String) {
        let token = "cs_" + Self.token(random, bytes: 32)
        let session = Session(id: newID(), tokenDigest: digester.digest(token), userID: userID, deviceID: deviceID,
                              createdAt: now, lastSeenAt: now, expiresAt: now.addingTimeInterval(policy.sessionLifetime))
        try store.createSession(session)
        return (session, token)
    }

    /// A failure whose attempt was already taken (`used` counts it; nil: none was left). Only
    /// the failure that used the last attempt locks the user, so a burst locks once; the count
    /// stays full while the lock lasts (see `clearExpiredLock`). The attempt's lease ends and the
    /// lock is written in one transaction: a process killed between them leaves neither. When
    /// the lease had expired meanwhile (a judgement slower than the lease), the failure is
    /// counted again, and it locks when the failures settled (not held by tries in flight) reach
    /// the maximum.
    func concludeFailure(_ userID: String, user: User?, used: Int64?, now: Date,
                         factor: AttemptFactor = .credentials) throws -> AuthenticationOutcome {
        guard let used else {
            var outcome = AuthenticationOutcome(status: .attemptsExhausted, userID: userID, attemptsLeft: 0)
            outcome.lockedUntil = user?.lockedUntil.flatMap { $0 > now ? $0 : nil }
            return outcome
        }
        let counter = counter(factor)
        do {
            return try store.atomically {
                let settled = try counter.concludeFailed(userID, now: now)
                let left = counter.left(afterUsing: max(used, settled ?? 0))
                guard left == 0 else { return AuthenticationOutcome(status: .credentialsRejected, userID: userID, attemptsLeft: left) }
                var outcome = AuthenticationOutcome(status: .attemptsExhausted, userID: userID, attemptsLeft: 0)
                outcome.lockedUntil = try lockForSpentAttempts(userID, now: now)
                return outcome
            }
        } catch {
            // No lock without its record: rolled back, the attempt's lease is there again; it goes
            // back, so that the next failure locks rather than a count that stays held.
            try? counter.giveBack(userID, now: now)
            throw error
        }
    }

    /// Locks the user whose attempts are spent, unless a lock already runs (a burst locks once):
    /// when it ends. A lock ends for good what the user's credentials gave: an unlock revives no
    /// session. Nil for an unknown user.
    @discardableResult
    func lockForSpentAttempts(_ userID: String, now: Date) throws -> Date? {
        try store.atomically {
            guard let user = try store.user(id: userID) else { return nil }
            if let until = user.lockedUntil, until > now { return until }
            let until = now.addingTimeInterval(policy.lockDuration(afterLocks: user.lockoutCount))
            try store.changeUser(id: userID, .lock(until: until))
            try endCredentials(userID, reason: "the user was locked after too many failed attempts", initiatingEntity: "policy", now: now)
            try audit?.record(.lockout, userID: userID, details: ["lockout_count": String(user.lockoutCount + 1),
                                                                 "locked_until": ISO8601DateFormatter().string(from: until)])
            return until
        }
    }

    /// Ends everything the user's credentials gave: every session (but `keepingSession`) and every
    /// OIDC grant, with the refresh and access tokens issued from it, and tells the relying
    /// parties (CAEP `session-revoked`, with `reason`). For a lock, a disable, a reset and a
    /// password change; call it inside the change's `atomically`.
    func endCredentials(_ userID: String, keepingSession: String? = nil, reason: String, initiatingEntity: String, now: Date) throws {
        try signals?.emit(.sessionRevoked(userID, reason: reason, initiatingEntity: initiatingEntity), now: now)
        if let keepingSession {
            for other in try store.sessions(userID: userID) where other.id != keepingSession { _ = try store.deleteSession(id: other.id) }
        } else {
            try store.deleteSessions(userID: userID)
        }
        try store.revokeGrants(userID: userID, deviceID: nil, at: now)
    }

    /// A lock that has run out gives the attempts back (the count stayed full while it lasted,
    /// so failures in flight when it began could not start a new count).
    func clearExpiredLock(_ user: User, now: Date) throws {
        guard let until = user.lockedUntil, until <= now else { return }
        try resetAllAttempts(user.id)
        try store.changeUser(id: user.id, .unlock)
    }

    func counter(_ factor: AttemptFactor) -> AttemptCounter {
        switch factor {
        case .credentials: attempts
        case .biometric: biometricAttempts
        }
    }

    /// A lock's end (run out, or lifted by an administrator) gives every factor its attempts back.
    func resetAllAttempts(_ userID: String) throws {
        try attempts.reset(userID)
        try biometricAttempts.reset(userID)
        try store.reset(Self.passwordRegistrationKey(userID))
        try store.reset(Self.unconfirmedFaceTriesKey(userID))
    }
}
