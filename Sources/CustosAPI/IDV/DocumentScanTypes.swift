import Foundation

/// `POST /v1/idv/transactions/{id}/confirm` of a document scan (workflow 7): the upload is
/// open; each image must keep to these limits.
public struct DocumentCaptureInfo: Codable, Equatable, Sendable {
    public var idvAuditTransactionID: String
    public var workflow: Workflow
    public var challengeMode: ChallengeMode?
    /// The sides the upload takes: `front` (required), `back` (optional).
    public var sides: [String]
    /// JPEG or PNG.
    public var imageTypes: [String]
    public var maxImageBytes: Int
    /// Width x height as the image's header declares it.
    public var maxImagePixels: Int
    public var expiresAt: Date

    enum CodingKeys: String, CodingKey {
        case workflow, sides
        case idvAuditTransactionID = "idv_audit_transaction_id"
        case challengeMode = "challenge_mode"
        case imageTypes = "image_types"
        case maxImageBytes = "max_image_bytes"
        case maxImagePixels = "max_image_pixels"
        case expiresAt = "expires_at"
    }

    public init(idvAuditTransactionID: String, workflow: Workflow, challengeMode: ChallengeMode?, sides: [String], imageTypes: [String],
                maxImageBytes: Int, maxImagePixels: Int, expiresAt: Date) {
        self.idvAuditTransactionID = idvAuditTransactionID
        self.workflow = workflow
        self.challengeMode = challengeMode
        self.sides = sides
        self.imageTypes = imageTypes
        self.maxImageBytes = maxImageBytes
        self.maxImagePixels = maxImagePixels
        self.expiresAt = expiresAt
    }
}

/// `POST /v1/idv/transactions/{id}/document`: the identity document's images (JPEG or PNG,
/// standard base64): the front with the portrait, and the back when the document has one.
public struct IDVDocumentRequest: Codable, Equatable, Sendable {
    public var frontImage: Data
    public var backImage: Data?

    enum CodingKeys: String, CodingKey {
        case frontImage = "front_image"
        case backImage = "back_image"
    }

    public init(frontImage: Data, backImage: Data? = nil) {
        self.frontImage = frontImage
        self.backImage = backImage
    }
}
