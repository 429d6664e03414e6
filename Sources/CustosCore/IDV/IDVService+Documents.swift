import Foundation

/// The additional document scan (workflow 7, challenge mode 10): the front (and back) image
/// of an identity document, the portrait on the front compared with the stored template.
/// No selfie, no consent, no template created. The images are kept sealed for the relying
/// party's review until the retention period ends or the user is deleted.
extension IDVService {
    /// Judges the document a confirmed document scan uploads: the largest face on `front`
    /// against the user's template (its mean descriptor, at the policy's threshold): MATCHED
    /// or NOT_MATCHED; 600 when the template is gone. A NOT_MATCHED uses one of the user's
    /// attempts (153 when it was the last); the attempt is taken before the document is
    /// judged. The judged images are stored with the verdict, in one database transaction.
    ///
    /// Cheap checks come first and cost nothing: a missing or empty front, an image larger
    /// than the frame byte cap or declaring more pixels than the frame pixel cap, one that is
    /// neither JPEG nor PNG. An image that does not decode, or a front without a face, leaves
    /// the transaction open for another upload, its attempt given back.
    ///
    /// `deviceID`: the device whose session sent it; one the password alone bound is refused
    /// (`deviceNotConfirmed`): a scan of another face must not spend the user's attempts.
    public func submitDocument(userID: String, transactionID: String, front: Data?,
                               back: Data?, deviceID: String? = nil) throws -> (transaction: IDVTransaction, result: IDVResult) {
        let transaction = try ownTransaction(userID: userID, id: transactionID)
        guard !transaction.workflow.takesSelfie else { throw IDVError.wrongStep(workflow: transaction.workflow.rawValue) }
        _ = try identity.biometricAttemptHolder(deviceID: deviceID, workflow: transaction.workflow)
        guard transaction.state == .challenged else { throw IDVError.transactionState(transaction.state) }
        let now = clock.now()
        guard transaction.expiresAt > now else { throw IDVError.transactionExpired }
        guard let front, !front.isEmpty else { throw IDVError.documentMissing }
        if let back, back.isEmpty {
            throw IDVError.invalidInput(field: "back_image", reason: "is empty; leave it out when the document has no back")
        }
        let images = try [checkedDocument(front, side: .front)] + (back.map { [try checkedDocument($0, side: .back)] } ?? [])
        let admission = try faces.admit(calls: images.count)
        defer { admission.end() }
        return try judge(transaction, now: now, assess: {
            defer { admission.end() }
            return try assessDocument($0, images)
        }) { transaction, result in
            guard result.decision == .matched || result.decision == .notMatched else { return }
            let expiresAt = now.addingTimeInterval(policy.documentRetention)
            for image in images {
                try store.saveDocument(try vault.sealDocument(image, transactionID: transaction.id, userID: userID, now: now,
                                                              expiresAt: expiresAt))
            }
        }
    }

    /// One side of a document scan's identity document, for the relying party's review (API
    /// key): the bytes exactly as uploaded, and their format. Every read is audited
    /// (`idv.document_viewed`, with the side and the id of the API key that read it) in the
    /// database transaction that reads the image: no image leaves without its record.
    public func document(transactionID: String, side: DocumentSide, viewer: APIKey) throws -> DocumentImage {
        let viewerKeyID = viewer.id
        let transaction = try transaction(id: transactionID, readBy: viewer)
        let now = clock.now()
        return try store.atomically {
            guard let sealed = try store.document(transactionID: transaction.id, side: side, now: now) else {
                throw IDVError.documentNotFound
            }
            let image = try vault.openDocument(sealed)
            try audit.record(.idvDocumentViewed, userID: transaction.userID, transactionID: transaction.id,
                             details: ["side": side.rawValue, "api_key_id": viewerKeyID])
            return image
        }
    }

    /// The sides of the transaction's document still kept (none for other workflows).
    public func documentSides(of transaction: IDVTransaction) throws -> [DocumentSide] {
        guard !transaction.workflow.takesSelfie else { return [] }
        return try store.documentSides(transactionID: transaction.id, now: clock.now())
    }

    /// Deletes the document images past their retention period (housekeeping); returns how many.
    @discardableResult
    public func purgeExpiredDocuments() throws -> Int {
        try store.purgeDocuments(now: clock.now())
    }

    /// The descriptor of the largest face on an identity document (the KYC portrait, the
    /// document scan's front): HOG upsampled on the full image, then the CNN detector when HOG
    /// finds none. `what` names the image in the error when it cannot be decoded.
    func documentPortrait(_ document: Data, what: String) throws -> FaceDescriptor {
        var portraits: [Face]
        do {
            var options = FaceOptions.thorough
            options.maxFaces = policy.maximumDocumentFaces
            portraits = try faces.analyze(document, options: options)
            if portraits.isEmpty { portraits = cnnFallback(document, options: options) ?? [] }
        } catch {
            throw IDVError.imageUnreadable(what: what, code: error.code.rawValue)
        }
        guard let portrait = portraits.largest, let descriptor = portrait.descriptor else {
            throw IDVError.documentNoFace
        }
        return descriptor
    }

    /// A document image that passed the checks made before anything is decoded: size, JPEG or
    /// PNG signature, the pixels its header declares (the frame caps).
    private func checkedDocument(_ bytes: Data, side: DocumentSide) throws -> DocumentImage {
        let limit = policy.liveness.maximumFrameBytes
        guard bytes.count <= limit else { throw IDVError.documentTooLarge(side: side, limit: limit) }
        guard let format = DocumentImageFormat(of: bytes) else { throw IDVError.documentNotImage(side: side) }
        if let size = faces.declaredSize(of: bytes), size.width * size.height > policy.maximumFramePixels {
            throw IDVError.documentDimensionsTooLarge(side: side, limit: policy.maximumFramePixels)
        }
        return DocumentImage(side: side, bytes: bytes, format: format)
    }

    /// The front's portrait against the template (the costly part, outside the database
    /// transaction); the back must decode too, so that what the relying party reviews is an
    /// image. A user whose template is gone gets 600 without anything being analysed.
    private func assessDocument(_ transaction: IDVTransaction, _ images: [DocumentImage]) throws -> Assessment {
        guard let sealed = try store.template(userID: transaction.userID) else { return Assessment(noTemplate: true) }
        var portrait: FaceDescriptor?
        for image in images {
            switch image.side {
            case .front:
                portrait = try documentPortrait(image.bytes, what: "document front image")
            case .back:
                do {
                    _ = try faces.analyze(image.bytes, options: Self.decodeCheck)
                } catch {
                    throw IDVError.imageUnreadable(what: "document back image", code: error.code.rawValue)
                }
            }
        }
        guard let portrait else { throw IDVError.documentMissing }
        return Assessment(distance: try vault.open(sealed).mean.distance(to: portrait))
    }

    /// The cheapest analysis that still decodes the whole image: HOG on a small copy, one face,
    /// no descriptor.
    private static let decodeCheck = FaceOptions(maxDetectionSide: 160, landmarks: .five, descriptor: false, maxFaces: 1)
}
