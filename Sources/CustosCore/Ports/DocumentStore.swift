import Foundation

/// One side of a document scan's identity document at rest: the image sealed (AES-256-GCM)
/// under the template key `keyID` names, bound to its user, transaction and side, so it can
/// be neither read without the master key nor passed off as another user's or another side.
public struct SealedDocument: Sendable, Equatable {
    /// `<transaction id>.<side>` (`TemplateVault.documentID`), bound into the sealing.
    public var id: String
    public var transactionID: String
    public var userID: String
    public var side: DocumentSide
    public var keyID: String
    public var ciphertext: Data
    public var createdAt: Date
    /// Deleted by housekeeping from then on (the retention period), and unreadable already.
    public var expiresAt: Date

    public init(id: String, transactionID: String, userID: String, side: DocumentSide, keyID: String, ciphertext: Data,
                createdAt: Date, expiresAt: Date) {
        self.id = id
        self.transactionID = transactionID
        self.userID = userID
        self.side = side
        self.keyID = keyID
        self.ciphertext = ciphertext
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// The identity document images of document scans (workflow 7), kept for the relying party's
/// review until their retention period ends; deleted with their user or transaction.
public protocol DocumentStore: Sendable {
    /// Stores a document image. Throws `StoreError.duplicate` when the transaction already
    /// has one of that side.
    func saveDocument(_ document: SealedDocument) throws
    /// The transaction's image of `side`, unless it expired by `now`.
    func document(transactionID: String, side: DocumentSide, now: Date) throws -> SealedDocument?
    /// The sides of the transaction still kept at `now`, front first.
    func documentSides(transactionID: String, now: Date) throws -> [DocumentSide]
    /// Deletes the images whose retention period ended by `now`; returns how many.
    @discardableResult
    func purgeDocuments(now: Date) throws -> Int
}
