import CustosCore
import Foundation

/// How a captured take (the app's own upload, recorded from its traffic) is replayed so that
/// its bytes differ from the original.
public enum TakeReplay: String, Sendable, CaseIterable, Codable {
    /// The same frames with bytes appended after each JPEG's end.
    case bytesAppended = "bytes_appended"
    /// Each frame decoded and re-encoded (quality 85).
    case reencoded
    /// Each frame scaled to 80%.
    case resized
    /// Each frame mirrored left to right.
    case mirrored
    /// The frames in reverse order, re-encoded.
    case reversed
    /// The central 82% of each frame scaled back to the frame's size (a crop), re-encoded.
    case cropped
    /// Resized to 80%, with about a second of held frames at each end (`held`).
    case resizedPadded = "resized_padded"
    /// Cropped, with held frames at each end.
    case croppedPadded = "cropped_padded"
    /// Every fourth frame dropped and every third sent twice (another frame rate), re-encoded.
    case droppedRepeated = "dropped_and_repeated"
    /// The middle half of the take only (a run inside an earlier, longer take), resized to 80%
    /// and padded with held frames.
    case partPadded = "part_padded"
}

extension PresentationAttacks {
    /// A replay of `take` made as `kind` says.
    public static func replayedTake(_ take: [Data], _ kind: TakeReplay) throws(FaceError) -> [Data] {
        switch kind {
        case .bytesAppended: return take.map { $0 + Data("appended".utf8) }
        case .reencoded: return try take.map { (frame) throws(FaceError) in try DecodedImage(data: frame).jpegData(quality: 85) }
        case .resized:
            return try take.map { (frame) throws(FaceError) in
                let image = try DecodedImage(data: frame)
                let (width, height) = (max(1, image.width * 4 / 5), max(1, image.height * 4 / 5))
                return try image.warped(by: .affine(a: 0.8, b: 0, c: 0, d: 0, e: 0.8, f: 0), width: width, height: height).jpegData()
            }
        case .mirrored:
            return try take.map { (frame) throws(FaceError) in
                let image = try DecodedImage(data: frame)
                return try image.warped(by: .affine(a: -1, b: 0, c: Double(image.width - 1), d: 0, e: 1, f: 0)).jpegData()
            }
        case .reversed: return try replayedTake(take.reversed(), .reencoded)
        case .cropped:
            return try take.map { (frame) throws(FaceError) in try cropped(try DecodedImage(data: frame)).jpegData() }
        case .resizedPadded: return try padded(try replayedTake(take, .resized))
        case .croppedPadded: return try padded(try replayedTake(take, .cropped))
        case .droppedRepeated:
            let kept = take.enumerated().flatMap { index, frame in index % 4 == 3 ? [] : index % 3 == 0 ? [frame, frame] : [frame] }
            return try kept.enumerated().map { (index, frame) throws(FaceError) in
                withComment(try DecodedImage(data: frame).jpegData(quality: 88), "frame \(index)")
            }
        case .partPadded:
            let quarter = take.count / 4
            return try padded(try replayedTake(Array(take[quarter..<(take.count - quarter)]), .resized))
        }
    }

    /// The central 82% of `image` (a share between those `FrameFingerprint.zooms` keeps),
    /// scaled back to its size.
    static func cropped(_ image: DecodedImage) throws(FaceError) -> DecodedImage {
        let (width, height) = (Double(image.width), Double(image.height))
        let scale = 1 / 0.82, shift = (scale - 1) / 2
        return try image.warped(by: .affine(a: scale, b: 0, c: -shift * width, d: 0, e: scale, f: -shift * height),
                                width: image.width, height: image.height)
    }

    /// `take` with `count` held frames before and after it: copies of its first and last frame,
    /// each moved by a fraction of a pixel and re-encoded at its own quality, the faint noise of
    /// a camera pointed at a still screen.
    public static func padded(_ take: [Data], count: Int = 12, seed: UInt64 = 7) throws(FaceError) -> [Data] {
        guard let first = take.first, let last = take.last else { return take }
        var state = seed &+ 0x9E37_79B9_7F4A_7C15
        func jitter() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return (Double(state >> 11) / Double(1 << 53) - 0.5) * 0.6
        }
        func held(_ frame: Data) throws(FaceError) -> [Data] {
            let image = try DecodedImage(data: frame)
            var frames: [Data] = []
            for index in 0..<count {
                let moved = try image.warped(by: .translation(dx: jitter(), dy: jitter()), width: image.width, height: image.height)
                frames.append(try moved.jpegData(quality: 86 + index % 8))
            }
            return frames
        }
        return try held(first) + take + held(last)
    }

    /// A "boomerang": the take played forward, then backward from its last frame but one,
    /// every frame re-encoded so no two files are equal — one head turn passed off as a turn
    /// and its opposite.
    public static func boomerang(_ take: [Data]) throws(FaceError) -> [Data] {
        let there = take
        let back = take.dropLast().reversed()
        return try (there + back).enumerated().map { (index, frame) throws(FaceError) in
            withComment(try DecodedImage(data: frame).jpegData(quality: 90), "boomerang \(index)")
        }
    }
}
