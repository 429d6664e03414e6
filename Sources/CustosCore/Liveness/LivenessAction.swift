/// What the person in front of the camera is asked to do.
///
/// Directions are the subject's own: `turnLeft` means the person turns the head to their
/// left, which in an unmirrored camera frame turns the face towards the image's right
/// (yaw grows, see `FaceQuality.yaw`).
public enum LivenessAction: String, Sendable, Codable, CaseIterable, Hashable {
    case turnLeft = "turn_left"
    case turnRight = "turn_right"
    case blink
    /// Open the mouth wide and close it again: the inner-lip aspect ratio of the 68-point
    /// landmarks rises and falls (talking does it too). Not drawn by default: the project's
    /// recordings hold no deliberate mouth opening to measure its BPCER on.
    case openMouth = "open_mouth"

    /// The actions a challenge draws from by default: those whose BPCER was measured.
    public static let measured: [LivenessAction] = [.turnLeft, .turnRight, .blink]

    /// The instruction an app shows for the action.
    public var instruction: String {
        switch self {
        case .turnLeft: "Turn your head slowly to your left, then look back at the camera."
        case .turnRight: "Turn your head slowly to your right, then look back at the camera."
        case .blink: "Blink your eyes."
        case .openMouth: "Open your mouth wide, then close it."
        }
    }
}
