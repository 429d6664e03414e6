import Foundation

/// A side of an identity document (workflow 7).
public enum DocumentSide: String, Sendable, CaseIterable, Codable {
    /// The side with the portrait; required.
    case front
    /// The other side (address, machine-readable zone); optional.
    case back
}

/// The image formats a document image may have, told by its first bytes.
public enum DocumentImageFormat: String, Sendable, CaseIterable {
    case jpeg, png

    /// The format whose signature `bytes` start with; nil for anything else.
    public init?(of bytes: Data) {
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else {
            return nil
        }
    }

    /// The media type the image is served with.
    public var contentType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        }
    }
}

/// One side of an identity document as the user uploaded it: the original bytes, kept
/// unchanged for the relying party's review. Lives only in memory in the clear; stored
/// sealed (`SealedDocument`).
public struct DocumentImage: Sendable, Equatable {
    public var side: DocumentSide
    public var bytes: Data
    public var format: DocumentImageFormat

    public init(side: DocumentSide, bytes: Data, format: DocumentImageFormat) {
        self.side = side
        self.bytes = bytes
        self.format = format
    }
}

/// What the user's start confirmation of a document scan opens: the upload of the document's
/// images, with the limits each image must keep to.
public struct DocumentCapture: Sendable, Equatable {
    public var transactionID: String
    public var workflow: IDVWorkflow
    /// Largest image, bytes.
    public var maximumImageBytes: Int
    /// Largest image, pixels (width x height, read from the header before decoding).
    public var maximumImagePixels: Int
    public var expiresAt: Date
}

/// What a confirmed start opens: a selfie workflow's liveness challenge, or the document
/// upload of a document scan.
public enum ConfirmedStart: Sendable, Equatable {
    case selfie(IssuedChallenge)
    case document(DocumentCapture)
}
