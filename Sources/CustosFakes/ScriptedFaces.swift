import CustosCore
import Foundation

/// Frames a test writes instead of camera pictures: a JPEG signature followed by a tag that
/// says what the fake face analyzer finds in it.
///
/// - `person` is whose face it shows: faces of one person have the same descriptor (distance 0,
///   MATCHED), of two people descriptors about √2 apart (NOT_MATCHED); nil: no face.
/// - `spoof`: the face is flat, which `ScriptedLiveness` fails (LIVENESS_FAILED).
/// - `take` and the frame's index make the bytes, and so the frame's fingerprint, unique: the
///   same take sent again is recognised as a replay, another take of the same person is not.
public enum ScriptedFrame {
    public static func jpeg(person: String?, spoof: Bool = false, take: String, index: Int) -> Data {
        Data([0xFF, 0xD8, 0xFF]) + Data("\(person ?? "")|\(spoof ? "spoof" : "live")|\(take)|\(index)".utf8)
    }

    /// A take of `count` frames 100 ms apart.
    public static func take(person: String?, spoof: Bool = false, take: String, count: Int = 6) -> [CapturedFrame] {
        (0..<count).map { CapturedFrame(capturedAtMilliseconds: 1000 + Int64($0) * 100, jpeg: jpeg(person: person, spoof: spoof, take: take, index: $0)) }
    }

    /// What a frame's tag says; nil for bytes that are not a scripted frame.
    static func read(_ data: Data) -> (person: String, spoof: Bool)? {
        guard data.starts(with: [0xFF, 0xD8, 0xFF]), let text = String(data: data.dropFirst(3), encoding: .utf8) else { return nil }
        let fields = text.split(separator: "|", omittingEmptySubsequences: false)
        guard fields.count == 4 else { return nil }
        return (String(fields[0]), fields[1] == "spoof")
    }
}

/// A face analyzer that reads `ScriptedFrame` tags instead of pixels: no dlib, and the test
/// decides what every frame shows. Bytes that are not a scripted frame are unreadable.
public struct ScriptedFaces: FaceAnalyzer {
    /// The yaw a spoofed face reports; `ScriptedLiveness` fails any take that shows it.
    public static let spoofYaw = 90.0

    public init() {}

    public func analyze(_ imageData: Data, options: FaceOptions) throws(FaceError) -> [Face] {
        guard let tag = ScriptedFrame.read(imageData) else { throw FaceError(.imageCorrupt, "not a scripted frame") }
        guard !tag.person.isEmpty else { return [] }
        let quality = FaceQuality(faceWidth: 200, sharpness: 100, brightness: 120, yaw: tag.spoof ? Self.spoofYaw : 0, pitch: 0, roll: 0)
        return [Face(box: FaceBox(left: 100, top: 100, width: 200, height: 200), landmarks: FaceLandmarks(five: []), quality: quality,
                     descriptor: try Self.descriptor(of: tag.person))]
    }

    public func analyzeFrame(_ imageData: Data, options: FaceOptions) throws(FaceError) -> (faces: [Face], fingerprint: FrameFingerprint?) {
        let faces = try analyze(imageData, options: options)
        // A grid of noise seeded by the bytes: equal frames, equal fingerprints; others far apart.
        var generator = SplitMix(bytes: imageData)
        let grid = (0..<FrameFingerprint.gridSide * FrameFingerprint.gridSide).map { _ in Double(generator.next() % 256) }
        return (faces, FrameFingerprint(luma: grid))
    }

    /// A random unit vector seeded by the name: the same person at distance 0, two people
    /// about √2 apart, far beyond any match threshold.
    public static func descriptor(of person: String) throws(FaceError) -> FaceDescriptor {
        var generator = SplitMix(bytes: Data(person.utf8))
        let values = (0..<FaceDescriptor.length).map { _ in Double(generator.next() % 2001) / 1000 - 1 }
        let norm = values.reduce(0) { $0 + $1 * $1 }.squareRoot()
        return try FaceDescriptor(values.map { Float($0 / norm) })
    }
}

/// A liveness detector that trusts the scripted faces: a take passes unless a frame shows no
/// face (`noFace`) or a spoofed one (`flatSurface`).
public struct ScriptedLiveness: LivenessDetector {
    public init() {}

    public func evaluate(_ frames: [LivenessFrame], challenge: LivenessChallenge) -> LivenessVerdict {
        if frames.contains(where: { $0.faces.isEmpty }) { return .fail(.noFace, "a frame shows no face") }
        if frames.contains(where: { $0.faces.contains { $0.quality.yaw == ScriptedFaces.spoofYaw } }) {
            return .fail(.flatSurface, "a spoofed face")
        }
        return .pass("scripted")
    }
}
