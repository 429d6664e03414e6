import CustosCore
import CustosFace
import Foundation

/// The presentation-attack instruments and motions `custos eval liveness` builds (ISO/IEC
/// 30107-3 reports the attack presentation classification error rate per type).
public enum LivenessAttackType: String, CaseIterable, Sendable, Codable {
    /// A genuine frame sent N times, byte for byte.
    case repeatedFrame = "repeated_frame"
    /// A genuine frame re-encoded N times (the same picture, different bytes).
    case reencodedFrame = "repeated_frame_reencoded"
    /// A genuine frame moved like a hand-held photo.
    case affinePhoto = "affine_photo"
    /// A genuine frame tilted like a printed photo, to fake the challenge's action.
    case perspectivePhoto = "perspective_photo"
    /// The printed-photo attack sample, moved / tilted.
    case printAffine = "print_photo_affine"
    case printPerspective = "print_photo_perspective"
    /// The screen-replay attack sample, moved / tilted.
    case screenAffine = "screen_replay_affine"
    case screenPerspective = "screen_replay_perspective"
    /// The genuine still, moved / tilted: for reference (as a sequence it is a photo attack).
    case liveStillAffine = "live_still_affine"
    case liveStillPerspective = "live_still_perspective"
    /// A genuine window submitted earlier, replayed with other bytes (`TakeReplay`), judged
    /// against the remembered take and then by the detector.
    case takeBytesAppended = "replayed_take_bytes_appended"
    case takeReencoded = "replayed_take_reencoded"
    case takeResized = "replayed_take_resized"
    case takeMirrored = "replayed_take_mirrored"
    case takeReversed = "replayed_take_reversed"
    case takeCropped = "replayed_take_cropped"
    case takeResizedPadded = "replayed_take_resized_padded"
    case takeCroppedPadded = "replayed_take_cropped_padded"
    case takeDroppedRepeated = "replayed_take_dropped_and_repeated"
    case takePartPadded = "replayed_take_part_padded"
    /// A turn window played forward then backward, against the turn and its opposite.
    case boomerang = "boomerang_clip"

    /// How a replayed-take type is made.
    public var takeReplay: TakeReplay? {
        switch self {
        case .takeBytesAppended: .bytesAppended
        case .takeReencoded: .reencoded
        case .takeResized: .resized
        case .takeMirrored: .mirrored
        case .takeReversed: .reversed
        case .takeCropped: .cropped
        case .takeResizedPadded: .resizedPadded
        case .takeCroppedPadded: .croppedPadded
        case .takeDroppedRepeated: .droppedRepeated
        case .takePartPadded: .partPadded
        default: nil
        }
    }

    /// Shown for reference, not counted against the targets.
    public var isReference: Bool { self == .liveStillAffine || self == .liveStillPerspective }

    /// The moved and tilted types for a still image of a manifest kind.
    public static func forStill(kind: String) -> (affine: LivenessAttackType, perspective: LivenessAttackType)? {
        switch kind {
        case "spoof_print": (.printAffine, .printPerspective)
        case "spoof_replay": (.screenAffine, .screenPerspective)
        case "live_image": (.liveStillAffine, .liveStillPerspective)
        default: nil
        }
    }
}

/// One capture shown to the detector with the challenge it is judged against.
public struct LivenessPresentation: Sendable {
    public enum Kind: Hashable, Sendable {
        /// A window of a genuine sequence.
        case genuine(sequence: String)
        case attack(LivenessAttackType)
    }

    public let kind: Kind
    /// The file it was made from (the first frame of a genuine window).
    public let source: String
    /// The challenge it is judged against (one action but for boomerangs).
    public let actions: [LivenessAction]
    public let frames: [DigestedFrame]
    public let fps: Double
    /// For replayed takes: the take submitted earlier, remembered by the server.
    public var earlierTake: [DigestedFrame] = []

    public init(kind: Kind, source: String, action: LivenessAction, frames: [DigestedFrame], fps: Double) {
        self.init(kind: kind, source: source, actions: [action], frames: frames, fps: fps)
    }

    public init(kind: Kind, source: String, actions: [LivenessAction], frames: [DigestedFrame], fps: Double, earlierTake: [DigestedFrame] = []) {
        self.kind = kind
        self.source = source
        self.actions = actions
        self.frames = frames
        self.fps = fps
        self.earlierTake = earlierTake
    }

    /// The first action of the challenge (what reports group by).
    public var action: LivenessAction { actions[0] }
}

/// Why genuine windows were not judged.
public struct SkippedWindows: Sendable, Codable {
    /// The window shows no complete blink, or no turn of the policy's size.
    public var noAction = 0
    /// The first or last frame of a turn window shows no face, so its direction is unknown.
    public var noFaceAtEnds = 0
    /// The window's action is not among `--actions`.
    public var actionNotSelected = 0

    public enum CodingKeys: String, CodingKey {
        case noAction = "no_action", noFaceAtEnds = "no_face_at_ends", actionNotSelected = "action_not_selected"
    }
}
