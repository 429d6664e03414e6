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

extension Collection<Face> {
    /// The face with the largest box by area: the subject of a selfie, the portrait of an
    /// identity document, the face `custos face compare` compares.
    public var largest: Face? {
        self.max { $0.box.width * $0.box.height < $1.box.width * $1.box.height }
    }
}
