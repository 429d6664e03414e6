import Foundation

/// What a capture must show: the actions in order, within a time window.
public struct LivenessChallenge: Sendable, Hashable, Codable {
    public var actions: [LivenessAction]
    /// The capture (first to last frame) lasts at least this long…
    public var minimumDuration: TimeInterval
    /// …and at most this long.
    public var maximumDuration: TimeInterval
    /// Seconds from the first frame before which no action counts (the app shows a pause).
    public var pause: TimeInterval

    public init(actions: [LivenessAction], minimumDuration: TimeInterval, maximumDuration: TimeInterval, pause: TimeInterval = 0) {
        self.actions = actions
        self.minimumDuration = minimumDuration
        self.maximumDuration = maximumDuration
        self.pause = pause
    }

    enum CodingKeys: String, CodingKey { case actions, minimumDuration, maximumDuration, pause }

    /// Challenges stored before pauses existed have none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        actions = try container.decode([LivenessAction].self, forKey: .actions)
        minimumDuration = try container.decode(TimeInterval.self, forKey: .minimumDuration)
        maximumDuration = try container.decode(TimeInterval.self, forKey: .maximumDuration)
        pause = try container.decodeIfPresent(TimeInterval.self, forKey: .pause) ?? 0
    }
}

/// One uploaded frame after face analysis.
public struct LivenessFrame: Sendable {
    /// When the client captured it, in milliseconds (any epoch; only differences count).
    public var capturedAtMilliseconds: Int64
    /// SHA-256 of the frame's bytes: identical frames are a replay.
    public var digest: Data
    /// The faces found, best detection first (with 68-point landmarks and descriptors).
    public var faces: [Face]
    /// What the whole frame shows, for replays whatever the bytes (nil: not computed).
    public var fingerprint: FrameFingerprint?

    public init(capturedAtMilliseconds: Int64, digest: Data, faces: [Face], fingerprint: FrameFingerprint? = nil) {
        self.capturedAtMilliseconds = capturedAtMilliseconds
        self.digest = digest
        self.faces = faces
        self.fingerprint = fingerprint
    }
}
