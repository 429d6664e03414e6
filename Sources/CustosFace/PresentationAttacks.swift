import CustosCore
import Foundation

/// How a photo held in front of the camera is tilted (see `PresentationAttacks.perspectivePhoto`).
public enum PhotoTilt: String, Sendable, CaseIterable, Codable {
    /// About the photo's horizontal axis, top edge away from the camera: the face is squashed
    /// vertically, so the eye aspect ratio dips as in a blink.
    case nod
    /// About the vertical axis, the image's right edge away from the camera: the face's
    /// image-left half grows and its image-right half shrinks, as when the subject turns to
    /// their left (estimated yaw grows).
    case turnLeft = "turn_left"
    /// The mirror of `turnLeft`: the image's left edge recedes (estimated yaw falls).
    case turnRight = "turn_right"
}

/// How far a hand-held photo wanders (`PresentationAttacks.affinePhoto`): each amount is the
/// largest excursion from the original placement.
public struct PhotoMotion: Sendable, Hashable {
    /// Translation, as a fraction of the image width (and height).
    public var translation: Double
    /// In-plane rotation, degrees.
    public var rotationDegrees: Double
    /// Scale change, as a fraction (0.05: 95% to 105%).
    public var scale: Double
    /// Shear, as a fraction (horizontal displacement per unit of height).
    public var shear: Double

    public init(translation: Double, rotationDegrees: Double, scale: Double, shear: Double) {
        self.translation = translation
        self.rotationDegrees = rotationDegrees
        self.scale = scale
        self.shear = shear
    }

    /// A photo held in a hand and moved a little: 4% translation, 6 degrees, 6% scale, 0.05 shear.
    public static let handHeld = PhotoMotion(translation: 0.04, rotationDegrees: 6, scale: 0.06, shear: 0.05)
    /// Hand tremor only (added to the tilts of `perspectivePhoto`).
    public static let tremor = PhotoMotion(translation: 0.008, rotationDegrees: 1, scale: 0.01, shear: 0.01)
}

/// Presentation attacks built from one genuine frame (JPEG or PNG bytes), as an attacker who
/// holds a photo or a captured frame would present them: the same frame replayed, a printed
/// photo moved by hand, a photo tilted to fake a blink or a head turn. Every sequence is
/// deterministic for a seed, and every frame has the (upright) size of the original; frames
/// other than `repeatedFrame`'s are new baseline JPEGs (EXIF orientation already applied).
/// For testing and evaluating liveness detection (`custos eval liveness`).
public enum PresentationAttacks {
    /// The same bytes `count` times: a replayed capture.
    public static func repeatedFrame(_ frame: Data, count: Int) -> [Data] {
        Array(repeating: frame, count: max(0, count))
    }

    /// The same picture `count` times, each file different: re-encoded at qualities from 85 to
    /// 97 in a seeded order, and from the 14th frame on also carrying a JPEG comment with its
    /// number (so no two files are equal byte for byte while the pixels barely change).
    public static func reencodedFrames(_ frame: Data, count: Int, seed: UInt64 = 1) throws(FaceError) -> [Data] {
        let image = try DecodedImage(data: frame)
        var generator = SeededGenerator(seed: seed)
        let qualities = Array(85...97).shuffled(using: &generator)
        var frames: [Data] = []
        for index in 0..<max(0, count) {
            let encoded = try image.jpegData(quality: qualities[index % qualities.count])
            frames.append(index < qualities.count ? encoded : withComment(encoded, "frame \(index)"))
        }
        return frames
    }

    /// One frame moved like a photo held in a hand: a smooth, seeded path of small
    /// translations, in-plane rotations, scalings and shears about the image centre.
    public static func affinePhoto(_ frame: Data, count: Int, motion: PhotoMotion = .handHeld, seed: UInt64 = 1,
                                   quality: Int = 90) throws(FaceError) -> [Data] {
        let image = try DecodedImage(data: frame)
        let path = HandPath(count: count, seed: seed)
        var frames: [Data] = []
        for index in 0..<max(0, count) {
            let moved = path.transform(at: index, motion: motion, width: image.width, height: image.height)
            frames.append(try image.warped(by: moved).jpegData(quality: quality))
        }
        return frames
    }

    /// One frame printed and tilted in front of the camera: frontal at the start and the end,
    /// rotated in between about the photo's horizontal axis (`nod`: fakes a blink) or its
    /// vertical axis (`turnLeft`/`turnRight`: fakes a head turn), smoothly up to
    /// `maxDegrees`, seen through a pinhole camera of focal length `focalLength` pixels
    /// (default: the image width), with hand tremor on top.
    public static func perspectivePhoto(_ frame: Data, count: Int, tilt: PhotoTilt, maxDegrees: Double = 40,
                                        focalLength: Double? = nil, seed: UInt64 = 1, quality: Int = 90) throws(FaceError) -> [Data] {
        guard maxDegrees.isFinite, abs(maxDegrees) < 80 else {
            throw FaceError(.invalidOptions, "the tilt must be under 80 degrees, got \(maxDegrees)")
        }
        let image = try DecodedImage(data: frame)
        let width = Double(image.width), height = Double(image.height)
        let focal = focalLength ?? width
        let path = HandPath(count: count, seed: seed)
        var frames: [Data] = []
        for index in 0..<max(0, count) {
            let angle = maxDegrees * tiltProfile(index: index, count: count)
            let (pitch, yaw) = tilt == .nod ? (angle, 0.0) : (0.0, tilt == .turnLeft ? -angle : angle)
            let tilted = try tiltHomography(width: width, height: height, pitchDegrees: pitch, yawDegrees: yaw, focalLength: focal)
            let shaken = path.transform(at: index, motion: .tremor, width: image.width, height: image.height)
            frames.append(try image.warped(by: shaken.after(tilted)).jpegData(quality: quality))
        }
        return frames
    }

    /// The image of a flat photo (filling a `width` x `height` frame when facing the camera)
    /// after rotating it about its centre, `pitchDegrees` about the horizontal axis (positive:
    /// top edge away) then `yawDegrees` about the vertical axis (positive: left edge away),
    /// seen by a pinhole camera of focal length `focalLength` px centred on the frame, the
    /// photo at distance `focalLength`. Maps input pixels to output pixels. Throws
    /// `invalid_options` for a focal length that is not positive or a value that is not finite.
    public static func tiltHomography(width: Double, height: Double, pitchDegrees: Double, yawDegrees: Double,
                                      focalLength: Double) throws(FaceError) -> Homography {
        guard focalLength.isFinite, focalLength > 0 else { throw FaceError(.invalidOptions, "the focal length must be positive") }
        let pitch = pitchDegrees * .pi / 180, yaw = yawDegrees * .pi / 180
        let cx = (width - 1) / 2, cy = (height - 1) / 2, f = focalLength
        // R = Ry(yaw) * Rx(pitch), signed so that positive angles send the top (left) edge away
        // from the camera; only its first two columns matter for points of the plane z = 0.
        let (cp, sp, cyaw, syaw) = (cos(pitch), sin(pitch), cos(yaw), sin(yaw))
        let r1 = [cyaw, 0, -syaw]                       // image x axis
        let r2 = [-syaw * sp, cp, -cyaw * sp]           // image y axis
        // Camera point of plane point (X, Y): X r1 + Y r2 + (0, 0, f); projection K = [f 0 cx; 0 f cy; 0 0 1].
        let planeToCamera = Homography.affine(a: 1, b: 0, c: -cx, d: 0, e: 1, f: -cy)
        let rotation = try Homography(rowMajor: [r1[0], r2[0], 0, r1[1], r2[1], 0, r1[2], r2[2], f])
        let camera = try Homography(rowMajor: [f, 0, cx, 0, f, cy, 0, 0, 1])
        return camera.after(rotation).after(planeToCamera)
    }

    /// 0 for the first and last fifth of the sequence, rising smoothly to 1 in the middle.
    static func tiltProfile(index: Int, count: Int) -> Double {
        guard count > 1 else { return 0 }
        let s = Double(index) / Double(count - 1)
        guard s > 0.2, s < 0.8 else { return 0 }
        let phase = sin(.pi * (s - 0.2) / 0.6)
        return phase * phase
    }

    /// `jpeg` with a comment segment (FF FE) after its JFIF header (or after SOI without one).
    public static func withComment(_ jpeg: Data, _ text: String) -> Data {
        let bytes = [UInt8](jpeg)
        guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return jpeg }
        var at = 2
        if bytes[2] == 0xFF, bytes[3] == 0xE0, bytes.count > 6 {
            let afterHeader = 4 + (Int(bytes[4]) << 8 | Int(bytes[5]))
            if afterHeader <= bytes.count { at = afterHeader }  // a header longer than the file: after SOI
        }
        let payload = Array(text.utf8.prefix(1000))
        let length = payload.count + 2
        let segment: [UInt8] = [0xFF, 0xFE, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        return Data(bytes[..<at] + segment + bytes[at...])
    }
}

/// A smooth seeded path for a hand-held photo: each of the five motion parameters is a sum of
/// two slow sinusoids (0.3 to 1.2 cycles over the sequence) with random phases, scaled to -1...1.
private struct HandPath {
    private let waves: [[(frequency: Double, phase: Double)]]
    private let count: Int

    init(count: Int, seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        waves = (0..<5).map { _ in
            (0..<2).map { _ in (Double.random(in: 0.3...1.2, using: &generator), Double.random(in: 0...(2 * .pi), using: &generator)) }
        }
        self.count = count
    }

    /// Parameter `k` (0-4) at frame `index`, in -1...1.
    private func value(_ k: Int, _ index: Int) -> Double {
        let t = count > 1 ? Double(index) / Double(count - 1) : 0
        return waves[k].reduce(0) { $0 + sin(2 * .pi * $1.frequency * t + $1.phase) } / 2
    }

    /// The input-to-output transform of frame `index`: about the centre, shear, scale and
    /// rotate, then translate.
    func transform(at index: Int, motion: PhotoMotion, width: Int, height: Int) -> Homography {
        let cx = Double(width - 1) / 2, cy = Double(height - 1) / 2
        let dx = motion.translation * Double(width) * value(0, index)
        let dy = motion.translation * Double(height) * value(1, index)
        let angle = motion.rotationDegrees * .pi / 180 * value(2, index)
        let scale = 1 + motion.scale * value(3, index)
        let shear = motion.shear * value(4, index)
        let (c, s) = (cos(angle) * scale, sin(angle) * scale)
        // [c -s; s c] * [1 shear; 0 1]
        let linear = Homography.affine(a: c, b: c * shear - s, c: 0, d: s, e: s * shear + c, f: 0)
        return Homography.translation(dx: cx + dx, dy: cy + dy).after(linear).after(.translation(dx: -cx, dy: -cy))
    }
}

/// SplitMix64: a small, fast generator whose sequence depends only on its seed, for
/// reproducible test material (not for secrets: use `RandomSource`).
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
