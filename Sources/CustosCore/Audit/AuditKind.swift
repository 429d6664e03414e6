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
    /// A challenge answer came with a nonce that is used, expired or another transaction's
    /// (replayed frames are an `idv.verdict` with `liveness: replay`).
    case idvReplayRejected = "idv.replay_rejected"
    /// The relying party read one side of a document scan's identity document (the side and
    /// the API key's id; never the image).
    case idvDocumentViewed = "idv.document_viewed"
    /// A biometric template was enrolled (opt-in or KYC).
    case enrollment = "biometric.enrolled"
    /// An enrolment replaced the user's template (authorised by a recent match or a grant).
    case templateReplaced = "biometric.template_replaced"
    /// The relying party granted the user one enrolment (`--enrollment grant`, or replacing a template).
    case enrollmentGranted = "biometric.enrollment_granted"
    /// The user opted out of biometrics.
    case optOut = "biometric.opted_out"
    /// A user was deleted by the relying party, with its devices, sessions, template, IDV
    /// transactions and document scan images (its audit events stay).
    case userDeleted = "user.deleted"
    /// An API key was created or revoked (its id, scope and label; never the secret).
    case apiKeyCreated = "api_key.created"
    case apiKeyRevoked = "api_key.revoked"
    /// A relying party created a user (waiting for activation).
    case userCreated = "user.created"
    case userDisabled = "user.disabled"
    case userEnabled = "user.enabled"
    /// An administrator lifted a lock.
    case userUnlocked = "user.unlocked"
    case passwordExpired = "user.password_expired"
    /// The relying party set the user's OpenID claims (the names present, never the values).
    case userClaimsChanged = "user.claims_changed"
    /// A new activation code was issued (never the code).
    case activationCodeIssued = "user.activation_code_issued"
    /// A registration code for another device was issued (never the code).
    case registrationCodeIssued = "user.registration_code_issued"
    /// A device was unbound (by the relying party, or by a reset).
    case deviceRevoked = "device.revoked"
    /// An OpenID client was registered, or deleted with its grants.
    case oidcClientCreated = "oidc.client_created"
    case oidcClientDeleted = "oidc.client_deleted"
    /// A CIBA client's delivery mode (and ping endpoint) was registered or changed.
    case cibaClientRegistered = "ciba.client_registered"
    /// The relying party started a user over (`POST /v1/users/{id}/reset`): devices unbound,
    /// sessions and grants ended, a new activation code issued; the actor's key id.
    case userReset = "user.reset"
    /// Keys were rotated (signing keys, template encryption keys); key ids only.
    case keyRotation = "keys.rotated"
    /// Everything sealed under the master key was re-sealed under a new one, and the chain
    /// re-keyed (`custos admin keys rotate-master`); the old and new key ids and counts only.
    case masterKeyRotated = "keys.master_key_rotated"
    /// A user was locked after running out of attempts.
    case lockout = "user.locked"
    /// A relying party sent a notification (its actions and their levels; never the message).
    case notificationCreated = "notification.created"
    /// A notification reached its final state: answered (the action and the level proved),
    /// expired, or failed (the wrong number was picked).
    case notificationClosed = "notification.closed"
    /// A device was bound: at activation (the activation code), or to an active user by the
    /// password (a sign-in's fallback) or a registration code; the device id and the proof's
    /// kind, never the proof.
    case deviceRegistered = "device.registered"
    /// A device bound by the password alone, confirmed by a registration code or an approval.
    case deviceConfirmed = "device.confirmed"
    /// A bound device signed its user in to an OpenID client (the client, the device and the
    /// `acr`; never the code).
    case oidcSignIn = "oidc.sign_in"
    /// A grant's tokens were revoked: by the client (RFC 7009), or because its authorization
    /// code or a spent refresh token was presented again (the reason in details).
    case oidcGrantRevoked = "oidc.grant_revoked"
}
