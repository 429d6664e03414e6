/// The answer to a confirmed start: the liveness challenge of a selfie workflow, or the upload
/// limits of a document scan (workflow 7). Encoded as the one it holds.
public enum IDVConfirmation: Codable, Sendable, Equatable {
    case selfie(LivenessChallengeInfo)
    case document(DocumentCaptureInfo)

    /// The two shapes, for the OpenAPI test's `oneOf`.
    public static var alternatives: [any Decodable.Type] { [LivenessChallengeInfo.self, DocumentCaptureInfo.self] }

    public init(from decoder: any Decoder) throws {
        // Only a challenge carries a nonce.
        if let challenge = try? LivenessChallengeInfo(from: decoder) {
            self = .selfie(challenge)
        } else {
            self = .document(try DocumentCaptureInfo(from: decoder))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .selfie(let challenge): try challenge.encode(to: encoder)
        case .document(let capture): try capture.encode(to: encoder)
        }
    }
}
