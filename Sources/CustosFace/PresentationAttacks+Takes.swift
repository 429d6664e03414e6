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
        }
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
