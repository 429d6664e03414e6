import Foundation

/// Identity document images at rest: sealed under the active template key like templates,
/// bound to their user and to their id, which names their transaction and side (an image can
/// be neither moved to another user or transaction nor served as the other side), and to
/// their purpose (never passed off as a template or a frame memory). Like frame memories they
/// stay under the template key they were sealed with until their retention period ends;
/// template keys are derived from the master key by id, so a template key rotation leaves them
/// readable, and a master key rotation re-seals them (`SealedRecord.Kind.document`).
extension TemplateVault {
    /// The id of a transaction's image of `side`: the id alone says whose and which it is.
    public static func documentID(transactionID: String, side: DocumentSide) -> String {
        transactionID + "." + side.rawValue
    }

    /// The associated data a document image is sealed with.
    public static func documentOwner(userID: String, documentID: String) -> Data {
        Data("document|\(userID)|\(documentID)".utf8)
    }

    func sealDocument(_ image: DocumentImage, transactionID: String, userID: String, now: Date, expiresAt: Date) throws -> SealedDocument {
        let keyID = try activeKeyID(now: now)
        let id = Self.documentID(transactionID: transactionID, side: image.side)
        let sealed = try cipher.seal(image.bytes, keyID: keyID, associatedData: Self.documentOwner(userID: userID, documentID: id))
        return SealedDocument(id: id, transactionID: transactionID, userID: userID, side: image.side, keyID: keyID, ciphertext: sealed,
                              createdAt: now, expiresAt: expiresAt)
    }

    /// Throws when the image was altered or moved (its row no longer names the transaction
    /// and side it was sealed for), or is not a JPEG or PNG image.
    public func openDocument(_ sealed: SealedDocument) throws -> DocumentImage {
        guard sealed.id == Self.documentID(transactionID: sealed.transactionID, side: sealed.side) else {
            throw StoreError.failure("document \(sealed.id) was moved to another transaction or side")
        }
        let bytes = try cipher.open(sealed.ciphertext, keyID: sealed.keyID,
                                    associatedData: Self.documentOwner(userID: sealed.userID, documentID: sealed.id))
        guard let format = DocumentImageFormat(of: bytes) else { throw StoreError.failure("document \(sealed.id) is not an image") }
        return DocumentImage(side: sealed.side, bytes: bytes, format: format)
    }
}
