import Foundation

/// Consent to keep a biometric template (workflows 6 and 10).
public struct IDVConsent: Codable, Equatable, Sendable {
    public var accepted: Bool
    /// The version of the consent text the user was shown.
    public var version: String

    public init(accepted: Bool, version: String) {
        self.accepted = accepted
        self.version = version
    }
}

/// `POST /v1/idv/transactions`: start a workflow (6 KYC, 7 additional document scan, 8 server
/// biometric authentication, 10 biometric opt-in).
public struct IDVInitiateRequest: Codable, Equatable, Sendable {
    public var workflow: Workflow
    public var reason: String?
    public var consent: IDVConsent?
    /// A nonce the relying party's server gave the app for this transaction; the signed
    /// result carries it back (`nonce`), so the relying party knows it answers its request.
    public var rpNonce: String?

    enum CodingKeys: String, CodingKey {
        case workflow, reason, consent
        case rpNonce = "rp_nonce"
    }

    public init(workflow: Workflow, reason: String? = nil, consent: IDVConsent? = nil, rpNonce: String? = nil) {
        self.workflow = workflow
        self.reason = reason
        self.consent = consent
        self.rpNonce = rpNonce
    }
}

/// An IDV transaction. When `result` is present the transaction is already over (workflows 7
/// and 8 without a template: 600).
public struct IDVTransactionInfo: Codable, Equatable, Sendable {
    public var idvAuditTransactionID: String
    public var workflow: Workflow
    public var challengeMode: ChallengeMode?
    public var orchestrationUseCase: UseCase
    public var reason: String
    /// awaiting_confirmation, challenged, judging, completed, cancelled.
    public var state: String
    public var expiresAt: Date
    public var result: IDVResultResponse?

    enum CodingKeys: String, CodingKey {
        case workflow, reason, state, result
        case idvAuditTransactionID = "idv_audit_transaction_id"
        case challengeMode = "challenge_mode"
        case orchestrationUseCase = "orchestration_use_case"
        case expiresAt = "expires_at"
    }

    public init(idvAuditTransactionID: String, workflow: Workflow, challengeMode: ChallengeMode?, orchestrationUseCase: UseCase, reason: String,
                state: String, expiresAt: Date, result: IDVResultResponse?) {
        self.idvAuditTransactionID = idvAuditTransactionID
        self.workflow = workflow
        self.challengeMode = challengeMode
        self.orchestrationUseCase = orchestrationUseCase
        self.reason = reason
        self.state = state
        self.expiresAt = expiresAt
        self.result = result
    }
}

/// One action of a liveness challenge, with the instruction to show.
public struct LivenessActionInfo: Codable, Equatable, Sendable {
    /// turn_left, turn_right or blink (the subject's own left and right).
    public var action: String
    public var instruction: String

    public init(action: String, instruction: String) {
        self.action = action
        self.instruction = instruction
    }
}

/// `POST /v1/idv/transactions/{id}/confirm`: the liveness challenge.
public struct LivenessChallengeInfo: Codable, Equatable, Sendable {
    public var idvAuditTransactionID: String
    public var workflow: Workflow
    /// Single-use; send it back with the frames.
    public var nonce: String
    /// To perform in this order.
    public var actions: [LivenessActionInfo]
    /// Hold still this long from the first frame before the first action (0: no pause).
    public var pauseMs: Int
    public var minDurationMs: Int
    public var maxDurationMs: Int
    public var minFrames: Int
    public var maxFrames: Int
    public var maxFrameBytes: Int
    public var expiresAt: Date

    enum CodingKeys: String, CodingKey {
        case workflow, nonce, actions
        case idvAuditTransactionID = "idv_audit_transaction_id"
        case pauseMs = "pause_ms"
        case minDurationMs = "min_duration_ms"
        case maxDurationMs = "max_duration_ms"
        case minFrames = "min_frames"
        case maxFrames = "max_frames"
        case maxFrameBytes = "max_frame_bytes"
        case expiresAt = "expires_at"
    }

    public init(idvAuditTransactionID: String, workflow: Workflow, nonce: String, actions: [LivenessActionInfo], pauseMs: Int = 0,
                minDurationMs: Int, maxDurationMs: Int, minFrames: Int, maxFrames: Int, maxFrameBytes: Int, expiresAt: Date) {
        self.idvAuditTransactionID = idvAuditTransactionID
        self.workflow = workflow
        self.nonce = nonce
        self.actions = actions
        self.pauseMs = pauseMs
        self.minDurationMs = minDurationMs
        self.maxDurationMs = maxDurationMs
        self.minFrames = minFrames
        self.maxFrames = maxFrames
        self.maxFrameBytes = maxFrameBytes
        self.expiresAt = expiresAt
    }
}

/// One captured frame: JPEG bytes (standard base64 in JSON) and the capture time in ms.
public struct FrameUpload: Codable, Equatable, Sendable {
    public var capturedAtMs: Int64
    public var image: Data

    enum CodingKeys: String, CodingKey {
        case image
        case capturedAtMs = "captured_at_ms"
    }

    public init(capturedAtMs: Int64, image: Data) {
        self.capturedAtMs = capturedAtMs
        self.image = image
    }
}

/// `POST /v1/idv/transactions/{id}/frames`: the answer to the challenge.
public struct IDVFramesRequest: Codable, Equatable, Sendable {
    public var nonce: String
    public var frames: [FrameUpload]
    /// KYC (workflow 6): the document portrait (JPEG or PNG, standard base64).
    public var documentImage: Data?

    enum CodingKeys: String, CodingKey {
        case nonce, frames
        case documentImage = "document_image"
    }

    public init(nonce: String, frames: [FrameUpload], documentImage: Data? = nil) {
        self.nonce = nonce
        self.frames = frames
        self.documentImage = documentImage
    }
}
