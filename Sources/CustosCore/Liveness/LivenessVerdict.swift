/// Why a capture was not accepted as a live person. Stable wire codes.
public enum LivenessFailure: String, Sendable, Codable, CaseIterable, Hashable {
    /// A frame shows no face.
    case noFace = "no_face"
    /// A frame shows more than one face.
    case multipleFaces = "multiple_faces"
    /// The face is too small to judge.
    case faceTooSmall = "face_too_small"
    /// The descriptors across frames belong to different people.
    case identityChanged = "identity_changed"
    /// An asked-for action was not performed (in order).
    case actionMissing = "action_missing"
    /// The landmark motion is explained by one plane moving: a photo or a screen.
    case flatSurface = "flat_surface"
    /// Frames outside the time window, or implausible timestamps.
    case timing
    /// The challenge was used or expired, or the frames repeat ones already seen (the same
    /// bytes, or a take that lines up with an earlier one however it was re-encoded).
    case replay
    /// Frames of the capture come back in reverse order after the head moved: a clip played
    /// forward then backward (one turn passed off as two).
    case sequenceReversed = "sequence_reversed"
}

/// The outcome of a liveness check.
public struct LivenessVerdict: Sendable, Hashable {
    /// nil when the capture passed.
    public var failure: LivenessFailure?
    /// One line for logs and operators (no biometric data).
    public var detail: String

    public var passed: Bool { failure == nil }

    public static func pass(_ detail: String) -> LivenessVerdict { LivenessVerdict(failure: nil, detail: detail) }
    public static func fail(_ failure: LivenessFailure, _ detail: String) -> LivenessVerdict {
        LivenessVerdict(failure: failure, detail: detail)
    }

    public init(failure: LivenessFailure?, detail: String) {
        self.failure = failure
        self.detail = detail
    }
}

/// Decides whether analysed frames show a live person performing the challenge. A trained
/// presentation-attack model can implement this too (or be combined with another detector).
public protocol LivenessDetector: Sendable {
    func evaluate(_ frames: [LivenessFrame], challenge: LivenessChallenge) -> LivenessVerdict
}
