import CFaceShim
import CustosCore

/// One engine instance: its own HOG detector, networks and jitter generator over the shared
/// models. Not thread-safe: a `FaceEngine` lends it to one caller at a time.
public final class FaceWorker {
    let handle: OpaquePointer
    let models: FaceModels

    init(models: FaceModels, seed: UInt64) throws(FaceError) {
        var engine: OpaquePointer?
        try ShimStatus.check { cfs_engine_create(models.handle, seed, &engine, $0) }
        guard let engine else { throw FaceError(.engineFailure, "engine creation returned nothing") }
        handle = engine
        self.models = models
    }

    deinit { cfs_engine_free(handle) }

    /// Face boxes, best first (at most 256).
    public func detect(_ image: DecodedImage, options: FaceOptions) throws(FaceError) -> [FaceBox] {
        var shimOptions = cfs_detect_options(
            detector: options.detector == .cnn ? Int32(CFS_DETECTOR_CNN.rawValue) : Int32(CFS_DETECTOR_HOG.rawValue),
            upsample: Int32(clamping: options.upsample), max_side: Int32(clamping: options.maxDetectionSide ?? 0),
            adjust_threshold: options.detectionThresholdAdjustment)
        let capacity = 256
        var rects = [cfs_rect](repeating: cfs_rect(), count: capacity)
        var count: Int32 = 0
        try ShimStatus.check { error in
            rects.withUnsafeMutableBufferPointer { cfs_detect(handle, image.handle, &shimOptions, $0.baseAddress, Int32(capacity), &count, error) }
        }
        return rects.prefix(Int(count)).map { rect in
            FaceBox(left: Int(rect.left), top: Int(rect.top), width: Int(rect.right - rect.left + 1),
                    height: Int(rect.bottom - rect.top + 1), score: rect.score)
        }
    }

    /// 5-point landmarks and, when asked and loaded, the 68 points.
    public func landmarks(_ image: DecodedImage, box: FaceBox, set: FaceLandmarkSet) throws(FaceError) -> FaceLandmarks {
        let five = try points(image, box: box, model: 5)
        let sixtyEight = set == .sixtyEight && models.has68 ? try points(image, box: box, model: 68) : nil
        return FaceLandmarks(five: five, sixtyEight: sixtyEight)
    }

    private func points(_ image: DecodedImage, box: FaceBox, model: Int32) throws(FaceError) -> [FacePoint] {
        var rect = cfs_rect(left: Int64(box.left), top: Int64(box.top), right: Int64(box.right - 1), bottom: Int64(box.bottom - 1),
                            score: box.score)
        var points = [cfs_point](repeating: cfs_point(), count: Int(model))
        try ShimStatus.check { error in
            points.withUnsafeMutableBufferPointer { cfs_landmarks(models.handle, image.handle, &rect, model, $0.baseAddress, error) }
        }
        return points.map { FacePoint(x: $0.x, y: $0.y) }
    }

    /// The aligned chip the descriptor network takes (150 px, padding 0.25, on the 5 points).
    public func chip(_ image: DecodedImage, landmarks: FaceLandmarks, size: Int = FaceChip.descriptorSize,
                     padding: Double = FaceChip.descriptorPadding) throws(FaceError) -> FaceChip {
        let points = landmarks.five.map { cfs_point(x: $0.x, y: $0.y) }
        var rgb = [UInt8](repeating: 0, count: size * size * 3)
        try ShimStatus.check { error in
            rgb.withUnsafeMutableBufferPointer { out in
                points.withUnsafeBufferPointer {
                    cfs_chip(image.handle, $0.baseAddress, Int32(points.count), Int32(size), padding, out.baseAddress, error)
                }
            }
        }
        return FaceChip(size: size, rgb: rgb)
    }

    /// Descriptors of 150 px chips, in one batch through the network.
    public func descriptors(_ chips: [FaceChip], flip: Bool = false, jitters: Int = 1) throws(FaceError) -> [FaceDescriptor] {
        guard !chips.isEmpty else { return [] }
        guard chips.allSatisfy({ $0.size == FaceChip.descriptorSize }) else {
            throw FaceError(.invalidOptions, "descriptor chips must be \(FaceChip.descriptorSize) px")
        }
        let length = FaceDescriptor.length
        var input = [UInt8]()
        input.reserveCapacity(chips.count * chips[0].rgb.count)
        for chip in chips { input += chip.rgb }
        var output = [Float](repeating: 0, count: chips.count * length)
        var options = cfs_descriptor_options(jitters: Int32(clamping: jitters), flip: flip ? 1 : 0)
        try ShimStatus.check { error in
            output.withUnsafeMutableBufferPointer { out in
                input.withUnsafeBufferPointer { cfs_descriptors(handle, $0.baseAddress, Int32(chips.count), &options, out.baseAddress, error) }
            }
        }
        var result: [FaceDescriptor] = []
        for index in 0..<chips.count {
            result.append(try FaceDescriptor(Array(output[(index * length)..<((index + 1) * length)])))
        }
        return result
    }

    /// Quality of a face from its box, landmarks and chip.
    public func quality(box: FaceBox, landmarks: FaceLandmarks, chip: FaceChip) -> FaceQuality {
        let pose = FacePoseEstimator.pose(landmarks)
        let eyes = FacePoseEstimator.eyeAspectRatios(landmarks)
        return FaceQuality(faceWidth: Double(box.width), sharpness: chip.sharpness, brightness: chip.brightness, yaw: pose.yaw,
                           pitch: pose.pitch, roll: pose.roll, leftEyeAspectRatio: eyes?.left, rightEyeAspectRatio: eyes?.right)
    }

    /// The whole pipeline on a decoded image.
    public func analyze(_ image: DecodedImage, options: FaceOptions) throws(FaceError) -> [Face] {
        try options.validate()
        if options.detector == .cnn && !models.hasCNN {
            throw FaceError(.modelUnavailable, "the CNN detector model (\(FaceModelFiles.cnnDetectorName)) is not loaded")
        }
        let boxes = try detect(image, options: options).prefix(options.maxFaces ?? .max)
        var faces: [Face] = []
        var chips: [FaceChip] = []
        for box in boxes {
            let landmarks = try self.landmarks(image, box: box, set: options.landmarks)
            let chip = try self.chip(image, landmarks: landmarks)
            faces.append(Face(box: box, landmarks: landmarks, quality: quality(box: box, landmarks: landmarks, chip: chip)))
            chips.append(chip)
        }
        if options.descriptor {
            let descriptors = try self.descriptors(chips, flip: options.flip, jitters: options.jitters)
            for index in faces.indices { faces[index].descriptor = descriptors[index] }
        }
        return faces
    }
}
