import Foundation

/// What an audit event records. The raw value is what is stored and hashed (`AuditEvent.kind`);
/// a released raw value never changes, new kinds are only added.
public enum AuditKind: String, Sendable, CaseIterable {
    /// An identity-verification (IDV) transaction was started (workflow and purpose in details).
    case idvTransactionStarted = "idv.transaction_started"
    /// The user or the app cancelled an IDV transaction (error 240 and the like).
    case idvCancelled = "idv.cancelled"
    /// The verdict of an IDV transaction: MATCHED, NOT_MATCHED, LIVENESS_FAILED (the decision,
    /// never the scores' inputs).
    case idvVerdict = "idv.verdict"
    /// A replayed nonce, frame set or challenge answer was refused.
    case idvReplayRejected = "idv.replay_rejected"
    /// A biometric template was enrolled (opt-in or KYC).
    case enrollment = "biometric.enrolled"
    /// The user opted out of biometrics.
    case optOut = "biometric.opted_out"
    /// A biometric template was deleted (opt-out, user deletion, operator).
    case templateDeleted = "biometric.template_deleted"
    /// Keys were rotated (signing keys, template encryption keys); key ids only.
    case keyRotation = "keys.rotated"
    /// A user was locked after running out of attempts.
    case lockout = "user.locked"
}
