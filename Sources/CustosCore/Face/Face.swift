/// One face found in an image.
public struct Face: Sendable, Hashable, Codable {
    public var box: FaceBox
    public var landmarks: FaceLandmarks
    public var quality: FaceQuality
    /// Present when the options asked for it.
    public var descriptor: FaceDescriptor?

    public init(box: FaceBox, landmarks: FaceLandmarks, quality: FaceQuality, descriptor: FaceDescriptor? = nil) {
        self.box = box
        self.landmarks = landmarks
        self.quality = quality
        self.descriptor = descriptor
    }
}
