/// Landmarks of one face: always dlib's 5 points (outer and inner corner of each eye, base of
/// the nose), and the iBUG 300-W 68 points when that model is loaded and asked for.
public struct FaceLandmarks: Sendable, Hashable, Codable {
    /// 0-1: the subject's left eye (image right), outer then inner corner; 2-3: the subject's
    /// right eye (image left), outer then inner; 4: below the nose.
    public var five: [FacePoint]
    /// iBUG 300-W order: 0-16 jaw, 17-26 brows, 27-35 nose, 36-41 and 42-47 eyes, 48-67 mouth.
    public var sixtyEight: [FacePoint]?

    public init(five: [FacePoint], sixtyEight: [FacePoint]? = nil) {
        self.five = five
        self.sixtyEight = sixtyEight
    }

    enum CodingKeys: String, CodingKey {
        case five = "points5"
        case sixtyEight = "points68"
    }
}
