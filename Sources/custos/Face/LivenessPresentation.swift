import CustosCore
import Foundation

/// The presentation-attack instruments and motions `custos eval liveness` builds (ISO/IEC
/// 30107-3 reports the attack presentation classification error rate per type).
enum LivenessAttackType: String, CaseIterable, Sendable, Codable {
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

    /// Shown for reference, not counted against the targets.
    var isReference: Bool { self == .liveStillAffine || self == .liveStillPerspective }

    /// The moved and tilted types for a still image of a manifest kind.
    static func forStill(kind: String) -> (affine: LivenessAttackType, perspective: LivenessAttackType)? {
        switch kind {
        case "spoof_print": (.printAffine, .printPerspective)
        case "spoof_replay": (.screenAffine, .screenPerspective)
        case "live_image": (.liveStillAffine, .liveStillPerspective)
        default: nil
        }
    }
}

/// One capture shown to the detector with the challenge it is judged against.
struct LivenessPresentation: Sendable {
    enum Kind: Hashable, Sendable {
        /// A window of a genuine sequence.
        case genuine(sequence: String)
        case attack(LivenessAttackType)
    }

    let kind: Kind
    /// The file it was made from (the first frame of a genuine window).
    let source: String
    let action: LivenessAction
    let frames: [DigestedFrame]
    let fps: Double
}

/// Why genuine windows were not judged.
struct SkippedWindows: Sendable, Codable {
    /// The window shows no complete blink, or no turn of the policy's size.
    var noAction = 0
    /// The first or last frame of a turn window shows no face, so its direction is unknown.
    var noFaceAtEnds = 0
    /// The window's action is not among `--actions`.
    var actionNotSelected = 0

    enum CodingKeys: String, CodingKey {
        case noAction = "no_action", noFaceAtEnds = "no_face_at_ends", actionNotSelected = "action_not_selected"
    }
}
