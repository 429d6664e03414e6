import Foundation

/// One stored value sealed under the master key, with what is needed to open it: re-sealing
/// under a new master key walks these (`custos admin keys rotate-master`).
public struct SealedRecord: Sendable, Equatable {
    /// What is sealed, and so where it is kept and how it was sealed.
    public enum Kind: String, Sendable, CaseIterable {
        /// A face template (`SealedTemplate`): sealed under its template key, the user id bound in.
        case template
        /// A take's frame fingerprints (`SealedFrameMemory`): sealed like a template, bound to
        /// `TemplateVault.frameMemoryOwner(userID)`.
        case frameMemory = "frame_memory"
        /// A signing key's private key (`StoredSigningKey`): the kid bound in.
        case signingKey = "signing_key"
        /// A document scan's image (`SealedDocument`): sealed like a template, bound to
        /// `TemplateVault.documentOwner(userID:documentID:)`.
        case document
    }

    public var kind: Kind
    /// The row's key: the user id of a template, the id of a frame memory or a document image,
    /// the kid of a signing key.
    public var id: String
    /// The user it belongs to (templates, frame memories, document images).
    public var userID: String?
    /// The template key it is sealed for (templates, frame memories, document images).
    public var keyID: String?
    public var ciphertext: Data

    public init(kind: Kind, id: String, userID: String?, keyID: String?, ciphertext: Data) {
        self.kind = kind
        self.id = id
        self.userID = userID
        self.keyID = keyID
        self.ciphertext = ciphertext
    }
}

/// Every value sealed under the master key, a page at a time, each replaced only while it is
/// unchanged, so a server writing the same row meanwhile is never overwritten.
public protocol SealedRecordStore: Sendable {
    /// Up to `limit` (> 0) records of `kind` whose id sorts after `afterID` (all of them from
    /// nil), in ascending id order; expired frame memories and document images and retired
    /// signing keys included.
    func sealedRecords(_ kind: SealedRecord.Kind, afterID: String?, limit: Int) throws -> [SealedRecord]
    /// Stores `ciphertext` for the record of `kind` and `id` only if it still holds `expected`;
    /// false when it changed or is gone.
    func replaceSealedRecord(_ kind: SealedRecord.Kind, id: String, expected: Data, with ciphertext: Data) throws -> Bool
}
