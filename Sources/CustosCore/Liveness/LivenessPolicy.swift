import Foundation

/// Challenge shape and the thresholds of `ChallengeLivenessDetector`. Every value is
/// configuration; the defaults were measured on the genuine sequences and attacks of the
/// project's liveness data (`bench/liveness.sh`).
public struct LivenessPolicy: Sendable, Hashable, Codable {
    // MARK: Challenge
    /// The actions a challenge draws from.
    public var allowedActions: [LivenessAction] = LivenessAction.measured
    /// How many actions a challenge asks for (drawn at random, no action twice in a row).
    public var actionsPerChallenge: Int = 2
    /// Shortest and longest capture (first to last frame), seconds.
    public var minimumDuration: TimeInterval = 0.5
    public var maximumDuration: TimeInterval = 20
    /// How long a challenge can be answered after it was issued, seconds.
    public var challengeLifetime: TimeInterval = 120
    /// Frames per upload.
    public var minimumFrames: Int = 3
    public var maximumFrames: Int = 40
    /// Bytes per frame.
    public var maximumFrameBytes: Int = 2 * 1024 * 1024

    // MARK: Detector
    /// Narrowest face box, pixels.
    public var minimumFaceWidth: Double = 60
    /// Frames of one capture must show one person: descriptor distance to the first frame.
    public var identityDistance: Double = 0.6
    /// Frames closer together than this are implausible for a camera, seconds.
    public var minimumFrameInterval: TimeInterval = 0.02
    /// Longest gap between consecutive frames, seconds.
    public var maximumFrameGap: TimeInterval = 3
    /// Landmarks of faces turned further than this (degrees of estimated yaw) are too
    /// unreliable to judge a turn on: such frames neither start nor complete one (near
    /// profile, landmark noise alone moves the estimate by tens of degrees).
    public var maximumTurnYaw: Double = 50
    /// Eyes are judged only on faces within this yaw (the eye aspect ratio of a face turned
    /// away is foreshortened and noisy).
    public var maximumBlinkYaw: Double = 35
    /// A turn is a yaw change of at least this many degrees from where the action started.
    public var turnDegrees: Double = 20
    /// A turn must show 3-D parallax: the homography residual of the rigid landmarks (in
    /// inter-ocular distances) reaches at least this.
    public var turnParallax: Double = 0.05
    /// Eyes count as closed when the (plane-rectified) eye aspect ratio falls to this
    /// fraction of the open value…
    public var blinkClosedRatio: Double = 0.6
    /// …and as open again above this fraction.
    public var blinkReopenedRatio: Double = 0.8
    /// The mouth counts as open when the inner-lip aspect ratio reaches this (a closed mouth
    /// reads 0.0-0.1, talking up to about 0.35, a wide-open mouth 0.5 and more)…
    public var mouthOpenRatio: Double = 0.3
    /// …having been at or below this before, and as closed again once back at or below it.
    public var mouthClosedRatio: Double = 0.2
    /// Each challenge holds the capture still for a random pause in this range (seconds)
    /// before its first action, shown by the app: no action counts before it has passed.
    /// `0...0` (the default): no pause, since the recorded data cannot measure its BPCER.
    public var pauseRange: ClosedRange<Double> = 0...0
    /// The flat-surface test judges only captures whose rigid landmarks deform at least this
    /// much beyond a similarity (in inter-ocular distances)…
    public var flatMinimumDeformation: Double = 0.06
    /// …and calls them flat when a homography explains all but this fraction of it.
    public var flatResidualRatio: Double = 0.6
    /// When frames that come back within a capture, or a take that lines up with an earlier
    /// one, are a replay.
    public var replay = SequenceReplay()

    public init() {}

    /// Throws a description of the first value out of range.
    public func validate() throws(LivenessPolicyError) {
        func check(_ ok: Bool, _ message: String) throws(LivenessPolicyError) {
            if !ok { throw LivenessPolicyError(message: message) }
        }
        try check(!allowedActions.isEmpty, "at least one liveness action must be allowed")
        try check((1...5).contains(actionsPerChallenge), "actions per challenge must be 1-5")
        try check(allowedActions.count > 1 || actionsPerChallenge == 1,
                  "with a single allowed action a challenge can ask for one action only")
        try check(minimumDuration >= 0 && maximumDuration > minimumDuration, "capture durations must satisfy 0 <= minimum < maximum")
        try check(challengeLifetime >= 5 && challengeLifetime <= 3600, "challenge lifetime must be 5-3600 s")
        try check(minimumFrames >= 2 && maximumFrames >= minimumFrames && maximumFrames <= 120, "frames must satisfy 2 <= minimum <= maximum <= 120")
        try check(maximumFrameBytes >= 1024 && maximumFrameBytes <= 8 * 1024 * 1024, "frame bytes must be 1 KiB-8 MiB")
        try check(minimumFaceWidth >= 20, "minimum face width must be at least 20 px")
        try check(identityDistance > 0 && identityDistance < 2, "identity distance must be in (0, 2)")
        try check(turnDegrees > 0 && turnDegrees < 90, "turn degrees must be in (0, 90)")
        try check(maximumTurnYaw > turnDegrees && maximumTurnYaw <= 90, "the maximum turn yaw must be in (turn degrees, 90]")
        try check(maximumBlinkYaw > 0 && maximumBlinkYaw <= 90, "the maximum blink yaw must be in (0, 90]")
        try check(blinkClosedRatio > 0 && blinkClosedRatio < blinkReopenedRatio && blinkReopenedRatio <= 1,
                  "blink ratios must satisfy 0 < closed < reopened <= 1")
        try check(flatResidualRatio > 0 && flatResidualRatio <= 1 && flatMinimumDeformation > 0, "flat-surface thresholds must be positive")
    }
}

/// A liveness setting out of range.
public struct LivenessPolicyError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
