/// What the caller of a selfie workflow did wrong; `kind` maps to an HTTP status in one place.
public enum IDVError: DomainError, Equatable {
    case invalidInput(field: String, reason: String)
    case consentRequired
    case transactionNotFound
    /// The transaction is not in the state the call needs (e.g. frames before confirmation).
    case transactionState(IDVTransaction.State)
    case transactionExpired
    /// The challenge nonce is unknown, used, expired or belongs to another transaction.
    case challengeRejected
    case frameTooLarge(index: Int, limit: Int)
    /// The frame's header declares more pixels than the cap.
    case frameDimensionsTooLarge(index: Int, limit: Int)
    case frameNotJPEG(index: Int)
    /// A document image larger than the frame byte cap.
    case documentTooLarge(side: DocumentSide, limit: Int)
    /// A document image whose header declares more pixels than the frame pixel cap.
    case documentDimensionsTooLarge(side: DocumentSide, limit: Int)
    /// A document image that is neither JPEG nor PNG.
    case documentNotImage(side: DocumentSide)
    /// The frame (or document image) could not be decoded: the face engine's code.
    case imageUnreadable(what: String, code: String)
    case documentMissing
    case documentNoFace
    /// The transaction has no kept document image of that side (none uploaded, not judged,
    /// past its retention period, or not a document scan).
    case documentNotFound
    /// The upload does not belong to the transaction's workflow (frames for a document scan,
    /// a document upload for a selfie workflow).
    case wrongStep(workflow: Int)
    /// A template exists: replacing or deleting it needs a recent MATCHED authentication in
    /// the same session, or a grant.
    case templateChangeNeedsProof
    /// `--enrollment grant`: enrolling needs the relying party's grant.
    case enrollmentGrantRequired

    public var kind: ErrorKind {
        switch self {
        case .invalidInput, .consentRequired, .imageUnreadable, .documentMissing, .documentNoFace: .invalidInput
        case .templateChangeNeedsProof, .enrollmentGrantRequired: .forbidden
        case .transactionNotFound, .documentNotFound: .notFound
        case .transactionState, .transactionExpired, .challengeRejected, .wrongStep: .conflict
        case .frameTooLarge, .frameDimensionsTooLarge, .documentTooLarge, .documentDimensionsTooLarge: .tooLarge
        case .frameNotJPEG, .documentNotImage: .unsupportedMedia
        }
    }

    public var code: String {
        switch self {
        case .invalidInput: "invalid_field"
        case .consentRequired: "consent_required"
        case .transactionNotFound: "idv_transaction_not_found"
        case .transactionState: "idv_transaction_state"
        case .transactionExpired: "idv_transaction_expired"
        case .challengeRejected: "challenge_replayed"
        case .frameTooLarge: "frame_too_large"
        case .frameDimensionsTooLarge: "frame_dimensions_too_large"
        case .frameNotJPEG: "frame_not_jpeg"
        case .documentTooLarge: "document_too_large"
        case .documentDimensionsTooLarge: "document_dimensions_too_large"
        case .documentNotImage: "document_not_image"
        case .imageUnreadable: "image_unreadable"
        case .documentMissing: "document_missing"
        case .documentNoFace: "document_no_face"
        case .documentNotFound: "idv_document_not_found"
        case .wrongStep: "idv_wrong_step"
        case .templateChangeNeedsProof: "template_change_needs_proof"
        case .enrollmentGrantRequired: "enrollment_grant_required"
        }
    }

    public var message: String {
        switch self {
        case .invalidInput(let field, let reason): "Field '\(field)' \(reason)."
        case .consentRequired: "This workflow creates a biometric template: consent (accepted, with its text version) is required."
        case .transactionNotFound: "No such IDV transaction."
        case .transactionState(let state): "The IDV transaction is \(state.rawValue.replacingOccurrences(of: "_", with: " ")); this step is not possible now."
        case .transactionExpired: "The IDV transaction or its challenge expired; start a new one."
        case .challengeRejected: "The challenge nonce is unknown, used or expired; start a new transaction."
        case .frameTooLarge(let index, let limit): "Frame \(index + 1) is larger than \(limit) bytes."
        case .frameDimensionsTooLarge(let index, let limit): "Frame \(index + 1) has more than \(limit) pixels; send camera frames of about 2 megapixels or less."
        case .frameNotJPEG(let index): "Frame \(index + 1) is not a JPEG image."
        case .documentTooLarge(let side, let limit): "The document's \(side.rawValue) image is larger than \(limit) bytes."
        case .documentDimensionsTooLarge(let side, let limit):
            "The document's \(side.rawValue) image has more than \(limit) pixels; send images of about 2 megapixels or less."
        case .documentNotImage(let side): "The document's \(side.rawValue) image is neither JPEG nor PNG."
        case .imageUnreadable(let what, let code): "The \(what) cannot be read (\(code))."
        case .documentMissing: "The document image is missing (KYC: the portrait; a document scan: the front)."
        case .documentNoFace: "No face was found in the document image."
        case .documentNotFound: "No such document image: none was kept for this transaction and side, or its retention period ended."
        case .wrongStep(let workflow):
            workflow == IDVWorkflow.additionalDocumentScan.rawValue
                ? "Workflow 7 takes the document's images (…/document), not selfie frames."
                : "Workflow \(workflow) takes selfie frames (…/frames), not a document upload."
        case .templateChangeNeedsProof:
            "A biometric template exists: replacing or deleting it needs a MATCHED server biometric authentication in this session in the last minutes, or the relying party's grant."
        case .enrollmentGrantRequired: "Enrolling a biometric template needs the relying party's grant on this server."
        }
    }
}
