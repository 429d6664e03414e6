import CustosAPI
import Foundation

/// One workflow run, from initiation to its result (`idv_audit_transaction_id`).
public struct IDVTransaction: Sendable, Equatable {
    public enum State: String, Sendable, Codable {
        /// Created; the app asks the user to confirm the start.
        case awaitingConfirmation = "awaiting_confirmation"
        /// Confirmed; a liveness challenge is out (a document scan: its images are awaited).
        case challenged
        /// Frames received with the right nonce; being judged (cannot be cancelled any more).
        case judging
        /// Frames judged; the result is final.
        case completed
        /// Declined or cancelled by the user (error 240).
        case cancelled
    }

    public var id: String
    public var userID: String
    public var workflow: IDVWorkflow
    public var reason: String
    public var state: State
    /// The consent text version the user accepted (enrolling workflows).
    public var consentVersion: String?
    public var createdAt: Date
    /// The transaction must finish before this.
    public var expiresAt: Date
    public var challenge: LivenessChallenge?
    public var challengeIssuedAt: Date?
    public var completedAt: Date?
    /// The final result, once completed or cancelled.
    public var result: IDVResult?
    /// An enrolment authorised (by a recent match or a relying-party grant) to replace the
    /// user's existing template; without it an enrolment only creates one.
    public var replacesTemplate: Bool
    /// A nonce the relying party gave the app for this transaction; echoed in the signed
    /// verdict so the relying party knows it answers its own request.
    public var relyingPartyNonce: String?

    public init(id: String, userID: String, workflow: IDVWorkflow, reason: String, state: State, consentVersion: String?,
                createdAt: Date, expiresAt: Date, challenge: LivenessChallenge? = nil, challengeIssuedAt: Date? = nil,
                completedAt: Date? = nil, result: IDVResult? = nil, replacesTemplate: Bool = false, relyingPartyNonce: String? = nil) {
        self.id = id
        self.userID = userID
        self.workflow = workflow
        self.reason = reason
        self.state = state
        self.consentVersion = consentVersion
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.challenge = challenge
        self.challengeIssuedAt = challengeIssuedAt
        self.completedAt = completedAt
        self.result = result
        self.replacesTemplate = replacesTemplate
        self.relyingPartyNonce = relyingPartyNonce
    }
}

/// What a transaction ended with. No biometric data: the decision, its distance and the
/// liveness reason.
public struct IDVResult: Sendable, Equatable, Codable {
    /// The contract's: `.success` (judged, see `decision`), `.noTemplate` (workflows 7 and 8; no
    /// attempt used), `.attemptsExhausted` (the user is locked), `.userCancelledSelfie`.
    public typealias Status = StatusCode
    /// `biometric_result.display_text`: MATCHED, NOT_MATCHED, LIVENESS_FAILED, ENROLLED.
    public typealias Decision = DisplayText

    public var status: Status
    public var decision: Decision?
    /// Descriptor distance behind the decision (lower is more alike), when a match ran.
    public var distance: Double?
    public var threshold: Double?
    public var livenessFailure: LivenessFailure?
    /// Whether the transaction created (or replaced) the template.
    public var templateCreated: Bool
    public var attempts: Int
    public var attemptsLeft: Int
    /// The result signed for the relying party (compact JWS), when the server signs results.
    public var signedVerdict: String?
    /// With `.attemptsExhausted`: when the user's lock ends.
    public var lockedUntil: Date?

    public init(status: Status, decision: Decision? = nil, distance: Double? = nil, threshold: Double? = nil,
                livenessFailure: LivenessFailure? = nil, templateCreated: Bool = false, attempts: Int = 0, attemptsLeft: Int) {
        self.status = status
        self.decision = decision
        self.distance = distance
        self.threshold = threshold
        self.livenessFailure = livenessFailure
        self.templateCreated = templateCreated
        self.attempts = attempts
        self.attemptsLeft = attemptsLeft
    }

    /// `idv_audit_info.status`: SUCCESS when the workflow achieved its purpose.
    public var succeeded: Bool { status == .success && (decision == .matched || decision == .enrolled) }
}
