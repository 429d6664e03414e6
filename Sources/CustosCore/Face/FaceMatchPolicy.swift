/// The outcome of comparing two faces.
public enum FaceMatchDecision: String, Sendable, Codable {
    case same
    case different
}

/// Decides "same person" from a descriptor distance: at or below the threshold is the same.
/// Independent of liveness, which is decided before a match is attempted.
public struct FaceMatchPolicy: Sendable, Hashable, Codable {
    /// dlib's published operating point for its ResNet descriptor (99.38% on LFW).
    public static let defaultThreshold = 0.6

    public var threshold: Double

    public init(threshold: Double = FaceMatchPolicy.defaultThreshold) throws(FaceError) {
        guard threshold.isFinite, threshold > 0, threshold < 2 else {
            throw FaceError(.invalidOptions, "match threshold must be in (0, 2), got \(threshold)")
        }
        self.threshold = threshold
    }

    public func decide(distance: Double) -> FaceMatchDecision { distance <= threshold ? .same : .different }

    public func decide(_ a: FaceDescriptor, _ b: FaceDescriptor) -> FaceMatchDecision { decide(distance: a.distance(to: b)) }
}
