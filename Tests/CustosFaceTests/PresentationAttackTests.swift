import CustosCore
import CustosFace
import CustosTestSupport
import Foundation
import Testing

/// The attack sequences of `PresentationAttacks`, checked with the face engine: what an
/// attacker shows still looks like a face (or the attack would be pointless).
@Suite("Presentation attack frames", needsSharedData)
struct PresentationAttackTests {
    static let framePath = "liveness/frames/blink_selfie/frame_0001.jpg"
    static let options = FaceOptions(maxDetectionSide: nil, landmarks: .sixtyEight, descriptor: false)

    func genuine() throws -> Data { try SharedData.data(Self.framePath) }

    /// The single face of each frame (fails when a frame has none or several).
    func faces(_ frames: [Data]) throws -> [Face] {
        try frames.enumerated().map { index, frame in
            let found = try Fixtures.engine().analyze(frame, options: Self.options)
            try #require(found.count == 1, "frame \(index): \(found.count) faces")
            return found[0]
        }
    }

    func sizes(_ frames: [Data]) throws -> Set<String> {
        Set(try frames.map { frame in
            let header = try DecodedImage.header(of: frame)
            return "\(header.width)x\(header.height)"
        })
    }

    @Test func repeatedFrameIsTheSameBytes() throws {
        let frame = try genuine()
        let frames = PresentationAttacks.repeatedFrame(frame, count: 5)
        #expect(frames.count == 5 && frames.allSatisfy { $0 == frame })
    }

    @Test func reencodedFramesDifferInBytesNotInPicture() throws {
        let frame = try genuine()
        let original = try DecodedImage(data: frame)
        let frames = try PresentationAttacks.reencodedFrames(frame, count: 16)
        #expect(frames.count == 16)
        #expect(Set(frames).count == 16)
        #expect(!frames.contains(frame))
        #expect(try sizes(frames) == ["\(original.width)x\(original.height)"])
        for reencoded in frames {
            let pixels = try DecodedImage(data: reencoded).rgb
            let difference = zip(pixels, original.rgb).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
            #expect(Double(difference) / Double(pixels.count) < 3)
        }
        #expect(try PresentationAttacks.reencodedFrames(frame, count: 16) == frames)
    }

    @Test func affinePhotoMovesSmoothlyAndKeepsTheFace() throws {
        let frame = try genuine()
        let frames = try PresentationAttacks.affinePhoto(frame, count: 12, seed: 7)
        let original = try DecodedImage(data: frame)
        #expect(try sizes(frames) == ["\(original.width)x\(original.height)"])
        let found = try faces(frames)
        let centres = found.map { FacePoint(x: Double($0.box.left) + Double($0.box.width) / 2, y: Double($0.box.top) + Double($0.box.height) / 2) }
        let steps = zip(centres, centres.dropFirst()).map { $0.distance(to: $1) }
        #expect(steps.max() ?? 0 < 0.05 * Double(original.width) + 6, "smooth: \(steps)")
        let spread = centres.map { $0.distance(to: centres[0]) }.max() ?? 0
        #expect(spread > 2, "the photo moves")
        #expect(try PresentationAttacks.affinePhoto(frame, count: 12, seed: 7) == frames)
        #expect(try PresentationAttacks.affinePhoto(frame, count: 12, seed: 8) != frames)
    }

    @Test func noddingPhotoSquashesTheEyes() throws {
        let frames = try PresentationAttacks.perspectivePhoto(genuine(), count: 11, tilt: .nod, maxDegrees: 40)
        let ratios = try faces(frames).map { face in
            ((face.quality.leftEyeAspectRatio ?? 0) + (face.quality.rightEyeAspectRatio ?? 0)) / 2
        }
        let start = ratios[0], middle = ratios[5], end = ratios[10]
        #expect(middle < 0.85 * start, "eye aspect ratios \(ratios)")
        #expect(abs(end - start) < 0.1 * start, "frontal again at the end: \(ratios)")
    }

    @Test(arguments: [PhotoTilt.turnLeft, .turnRight])
    func turningPhotoChangesTheYaw(tilt: PhotoTilt) throws {
        let frames = try PresentationAttacks.perspectivePhoto(genuine(), count: 11, tilt: tilt, maxDegrees: 40)
        let yaws = try faces(frames).map(\.quality.yaw)
        let change = yaws[5] - yaws[0]
        // turnLeft fakes the subject turning to their left: yaw grows (see LivenessAction).
        #expect(tilt == .turnLeft ? change > 3 : change < -3, "yaws \(yaws)")
    }

    @Test func tiltHomographyIsTheIdentityWhenFacingTheCamera() throws {
        let h = try PresentationAttacks.tiltHomography(width: 270, height: 480, pitchDegrees: 0, yawDegrees: 0, focalLength: 270)
        for (a, b) in zip(h.matrix.map { $0 / h.matrix[8] }, Homography.identity.matrix) { #expect(abs(a - b) < 1e-9) }
        // Tilting about the horizontal axis keeps the centre column's centre where it was.
        let tilted = try PresentationAttacks.tiltHomography(width: 270, height: 480, pitchDegrees: 30, yawDegrees: 0, focalLength: 270)
        let centre = try #require(tilted.applied(to: FacePoint(x: 134.5, y: 239.5)))
        #expect(abs(centre.x - 134.5) < 1e-9 && abs(centre.y - 239.5) < 1e-9)
        #expect(throws: FaceError.self) { try PresentationAttacks.perspectivePhoto(Data(), count: 2, tilt: .nod) }
        #expect(throws: FaceError.self) {
            try PresentationAttacks.tiltHomography(width: 10, height: 10, pitchDegrees: 0, yawDegrees: 0, focalLength: 0)
        }
    }
}
