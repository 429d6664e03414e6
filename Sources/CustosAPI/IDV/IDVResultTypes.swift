import Foundation

/// The result of a workflow (a selfie, or workflow 7's document), in the contract's terms: `status_code` 100 when judged
/// (see `biometric_result.display_text` and `idv_audit_info.status`), 600 no template,
/// 153 attempts exhausted, 240 cancelled by the user.
public struct IDVResultResponse: Codable, Equatable, Sendable {
    public var statusCode: StatusCode
    public var statusMessage: String
    public var userID: String
    public var workflow: Workflow
    public var challengeMode: ChallengeMode?
    /// The reason given at initiation.
    public var purpose: String
    public var attempts: Int
    public var attemptsLeft: Int
    public var biometricResult: BiometricResultInfo?
    public var idvAuditInfo: IDVAuditInfo
    /// Whether this transaction created (or replaced) the user's template.
    public var templateCreated: Bool
    /// The result signed by the server (compact JWS, ES256, `kid` in `/.well-known/jwks.json`)
    /// for the app to hand to its relying party's server, which verifies it offline.
    public var signedResult: String?
    /// With 153: when the user's lock ends (it lifts by itself then; an admin can lift it sooner).
    public var lockedUntil: Date?

    enum CodingKeys: String, CodingKey {
        case workflow, purpose, attempts
        case lockedUntil = "locked_until"
        case signedResult = "signed_result"
        case statusCode = "status_code"
        case statusMessage = "status_message"
        case userID = "user_id"
        case challengeMode = "challenge_mode"
        case attemptsLeft = "attempts_left"
        case biometricResult = "biometric_result"
        case idvAuditInfo = "idv_audit_info"
        case templateCreated = "template_created"
    }

    public init(statusCode: StatusCode, statusMessage: String, userID: String, workflow: Workflow, challengeMode: ChallengeMode?, purpose: String,
                attempts: Int, attemptsLeft: Int, biometricResult: BiometricResultInfo?, idvAuditInfo: IDVAuditInfo,
                templateCreated: Bool, signedResult: String? = nil, lockedUntil: Date? = nil) {
        self.signedResult = signedResult
        self.lockedUntil = lockedUntil
        self.statusCode = statusCode
        self.statusMessage = statusMessage
        self.userID = userID
        self.workflow = workflow
        self.challengeMode = challengeMode
        self.purpose = purpose
        self.attempts = attempts
        self.attemptsLeft = attemptsLeft
        self.biometricResult = biometricResult
        self.idvAuditInfo = idvAuditInfo
        self.templateCreated = templateCreated
    }
}

/// `biometric_result`: MATCHED, NOT_MATCHED, LIVENESS_FAILED (ENROLLED for an opt-in).
public struct BiometricResultInfo: Codable, Equatable, Sendable {
    public var displayText: DisplayText
    /// The next four are for development only (`--idv-result-detail`): an app that sees the
    /// exact distance and liveness reason is an oracle for tuning a spoof. The relying party
    /// reads them from `GET /v1/idv/transactions/{id}/verdict`.
    /// Similarity 0-1 (1 - distance, floored at 0), when a comparison ran.
    public var score: Double?
    /// Descriptor distance and the threshold it was held against (lower is more alike).
    public var distance: Double?
    public var threshold: Double?
    /// With LIVENESS_FAILED: no_face, multiple_faces, face_too_small, identity_changed,
    /// action_missing, flat_surface, timing, replay, sequence_reversed.
    public var livenessReason: String?

    enum CodingKeys: String, CodingKey {
        case score, distance, threshold
        case displayText = "display_text"
        case livenessReason = "liveness_reason"
    }

    public init(displayText: DisplayText, score: Double? = nil, distance: Double? = nil, threshold: Double? = nil, livenessReason: String? = nil) {
        self.displayText = displayText
        self.score = score
        self.distance = distance
        self.threshold = threshold
        self.livenessReason = livenessReason
    }
}

/// `idv_audit_info`.
public struct IDVAuditInfo: Codable, Equatable, Sendable {
    /// SUCCESS or FAILURE.
    public var status: AuditStatus
    public var idvAuditTransactionID: String
    public var orchestrationUseCase: UseCase
    public var reason: String
    public var auditMetrics: AuditMetrics

    enum CodingKeys: String, CodingKey {
        case status, reason
        case idvAuditTransactionID = "idv_audit_transaction_id"
        case orchestrationUseCase = "orchestration_use_case"
        case auditMetrics = "audit_metrics"
    }

    public init(status: AuditStatus, idvAuditTransactionID: String, orchestrationUseCase: UseCase, reason: String, auditMetrics: AuditMetrics) {
        self.status = status
        self.idvAuditTransactionID = idvAuditTransactionID
        self.orchestrationUseCase = orchestrationUseCase
        self.reason = reason
        self.auditMetrics = auditMetrics
    }
}

/// Start and end of the transaction, seconds since 1970.
public struct AuditMetrics: Codable, Equatable, Sendable {
    public var startTimestamp: Int64
    public var endTimestamp: Int64

    enum CodingKeys: String, CodingKey {
        case startTimestamp = "start_timestamp"
        case endTimestamp = "end_timestamp"
    }

    public init(startTimestamp: Int64, endTimestamp: Int64) {
        self.startTimestamp = startTimestamp
        self.endTimestamp = endTimestamp
    }
}

/// `GET /v1/idv/transactions/{id}/verdict` (API key, scope rp): what the relying party's
/// server reads instead of trusting the app — the decision with its evidence (and, for a
/// document scan, which of the document's images it can review).
public struct IDVVerdictResponse: Codable, Equatable, Sendable {
    public var idvAuditTransactionID: String
    public var userID: String
    public var workflow: Workflow
    /// awaiting_confirmation, challenged, judging, completed, cancelled.
    public var state: String
    /// 100, 600, 153, 240 once the transaction is over.
    public var statusCode: StatusCode?
    /// MATCHED, NOT_MATCHED, LIVENESS_FAILED, ENROLLED.
    public var decision: DisplayText?
    /// Absent for a document scan, which judges no liveness.
    public var livenessPassed: Bool?
    public var livenessReason: String?
    public var distance: Double?
    public var threshold: Double?
    public var attemptsLeft: Int?
    public var purpose: String
    public var createdAt: Date
    public var completedAt: Date?
    public var signedResult: String?
    /// A document scan's images still kept (`front`, `back`), each readable at
    /// `GET /v1/idv/transactions/{id}/documents/{side}`.
    public var documents: [String]?

    enum CodingKeys: String, CodingKey {
        case workflow, state, decision, distance, threshold, purpose, documents
        case idvAuditTransactionID = "idv_audit_transaction_id"
        case userID = "user_id"
        case statusCode = "status_code"
        case livenessPassed = "liveness_passed"
        case livenessReason = "liveness_reason"
        case attemptsLeft = "attempts_left"
        case createdAt = "created_at"
        case completedAt = "completed_at"
        case signedResult = "signed_result"
    }

    public init(idvAuditTransactionID: String, userID: String, workflow: Workflow, state: String, statusCode: StatusCode?, decision: DisplayText?,
                livenessPassed: Bool?, livenessReason: String?, distance: Double?, threshold: Double?, attemptsLeft: Int?,
                purpose: String, createdAt: Date, completedAt: Date?, signedResult: String?, documents: [String]? = nil) {
        self.idvAuditTransactionID = idvAuditTransactionID
        self.userID = userID
        self.workflow = workflow
        self.state = state
        self.statusCode = statusCode
        self.decision = decision
        self.livenessPassed = livenessPassed
        self.livenessReason = livenessReason
        self.distance = distance
        self.threshold = threshold
        self.attemptsLeft = attemptsLeft
        self.purpose = purpose
        self.createdAt = createdAt
        self.completedAt = completedAt
        self.signedResult = signedResult
        self.documents = documents
    }
}
