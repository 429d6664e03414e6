/// How usable a face is for a biometric decision.
public struct FaceQuality: Sendable, Hashable, Codable {
    /// Width of the face box in image pixels.
    public var faceWidth: Double
    /// Variance of the Laplacian of the gray 150x150 aligned chip: low means blurred.
    public var sharpness: Double
    /// Mean luma (0-255) of the aligned chip.
    public var brightness: Double
    /// Head pose in degrees, estimated from landmarks: yaw positive when the face turns to the
    /// image's right, pitch positive when it tilts up, roll positive when it leans clockwise.
    public var yaw: Double
    public var pitch: Double
    public var roll: Double
    /// Eye aspect ratio (height over width, about 0.25-0.35 open, under 0.2 closed); needs the
    /// 68-point landmarks. "Left" is the subject's left eye (on the image's right).
    public var leftEyeAspectRatio: Double?
    public var rightEyeAspectRatio: Double?

    public init(faceWidth: Double, sharpness: Double, brightness: Double, yaw: Double, pitch: Double, roll: Double,
                leftEyeAspectRatio: Double? = nil, rightEyeAspectRatio: Double? = nil) {
        self.faceWidth = faceWidth
        self.sharpness = sharpness
        self.brightness = brightness
        self.yaw = yaw
        self.pitch = pitch
        self.roll = roll
        self.leftEyeAspectRatio = leftEyeAspectRatio
        self.rightEyeAspectRatio = rightEyeAspectRatio
    }

    enum CodingKeys: String, CodingKey {
        case faceWidth = "face_width", sharpness, brightness, yaw, pitch, roll
        case leftEyeAspectRatio = "left_eye_aspect_ratio", rightEyeAspectRatio = "right_eye_aspect_ratio"
    }
}
