/// Which face detector to run.
public enum FaceDetectorKind: String, Sendable, Codable, CaseIterable {
    /// dlib's HOG frontal detector: fast on a CPU, frontal and near-frontal faces of about
    /// 80 px and up (40 px with one upsampling).
    case hog
    /// dlib's MMOD CNN detector: finds more poses, much slower on a CPU.
    case cnn
}

/// Which landmarks to compute (the 5 points are always there; the descriptor aligns on them).
public enum FaceLandmarkSet: String, Sendable, Codable {
    case five
    /// Also the 68-point iBUG 300-W landmarks, when that model is loaded (not for commercial use).
    case sixtyEight
}

/// How to analyze an image.
public struct FaceOptions: Sendable, Hashable, Codable {
    public var detector: FaceDetectorKind
    /// Times to double the image before detecting: each finds faces half as small and costs
    /// about four times as much. 0-4.
    public var upsample: Int
    /// Detect on a copy scaled so its longer side is at most this (boxes are mapped back and
    /// landmarks run on the original); nil: always the full image.
    public var maxDetectionSide: Int?
    public var landmarks: FaceLandmarkSet
    /// Compute the 128-d descriptor of each face.
    public var descriptor: Bool
    /// Average the descriptor with that of the mirrored chip.
    public var flip: Bool
    /// 0 or 1: the chip as is; N > 1: the mean over N randomly jittered chips (N times slower).
    public var jitters: Int
    /// Added to the detector's threshold: negative finds more (and more false) faces.
    public var detectionThresholdAdjustment: Double
    /// Landmarks and descriptors for at most this many detections (best first); nil: all.
    /// Bounds the work a hostile image tiled with faces can cause.
    public var maxFaces: Int?

    public init(detector: FaceDetectorKind = .hog, upsample: Int = 0, maxDetectionSide: Int? = 480,
                landmarks: FaceLandmarkSet = .sixtyEight, descriptor: Bool = true, flip: Bool = false, jitters: Int = 1,
                detectionThresholdAdjustment: Double = 0, maxFaces: Int? = nil) {
        self.detector = detector
        self.upsample = upsample
        self.maxDetectionSide = maxDetectionSide
        self.landmarks = landmarks
        self.descriptor = descriptor
        self.flip = flip
        self.jitters = jitters
        self.detectionThresholdAdjustment = detectionThresholdAdjustment
        self.maxFaces = maxFaces
    }

    /// Selfies and liveness frames: one large face near the camera. HOG without upsampling on
    /// a copy of at most 480 px (faces from about 110 px in a 640 px frame), 68-point
    /// landmarks when available, descriptor; two faces at most, enough to tell "more than one".
    public static let selfie = FaceOptions(maxFaces: 2)

    /// The parameters of the Python `face_recognition` package's defaults (HOG upsampled once
    /// on the full image, 5-point alignment, one jitter): the parity benchmark's setting.
    public static let peerDefaults = FaceOptions(upsample: 1, maxDetectionSide: nil, landmarks: .five)

    /// Photos with several or small faces (about 40 px and up): HOG upsampled once on the
    /// full image, up to 2000 px on the longer side.
    public static let thorough = FaceOptions(upsample: 1, maxDetectionSide: 2000)

    /// Throws `invalid_options` when a value is out of range.
    public func validate() throws(FaceError) {
        guard (0...4).contains(upsample) else { throw FaceError(.invalidOptions, "upsample must be 0-4, got \(upsample)") }
        if let side = maxDetectionSide, !(32...16384).contains(side) {
            throw FaceError(.invalidOptions, "maximum detection side must be 32-16384, got \(side)")
        }
        if let maxFaces, maxFaces < 1 { throw FaceError(.invalidOptions, "maximum faces must be at least 1, got \(maxFaces)") }
        guard (0...100).contains(jitters) else { throw FaceError(.invalidOptions, "jitters must be 0-100, got \(jitters)") }
        guard detectionThresholdAdjustment.isFinite, abs(detectionThresholdAdjustment) <= 10 else {
            throw FaceError(.invalidOptions, "detection threshold adjustment must be within -10...10")
        }
    }
}
