import CustosCore
import CustosFace
import CustosTestSupport
import Foundation
import Testing

/// `DecodedImage.warped` and `jpegData` over the shim's warp and JPEG encoder.
@Suite("Image warp and JPEG encoding", needsSharedData)
struct ImageWarpTests {
    /// A selfie-like frame: one large frontal face.
    static let framePath = "liveness/frames/blink_selfie/frame_0001.jpg"
    static let options = FaceOptions(maxDetectionSide: nil, landmarks: .five, descriptor: false)

    func frame() throws -> DecodedImage { try DecodedImage(data: SharedData.data(Self.framePath)) }

    func onlyFace(_ image: DecodedImage) throws -> FaceBox {
        let faces = try Fixtures.engine().analyze(image, options: Self.options)
        try #require(faces.count == 1, "expected one face, found \(faces.count)")
        return faces[0].box
    }

    /// The centre of the 5 landmarks of the single face, found on its detected box.
    func landmarkCentre(_ image: DecodedImage) throws -> (x: Double, y: Double) {
        let points = try Fixtures.engine().analyze(image, options: Self.options)[0].landmarks.five
        return (points.map(\.x).reduce(0, +) / 5, points.map(\.y).reduce(0, +) / 5)
    }

    @Test func identityWarpKeepsPixelsAndFace() throws {
        let image = try frame()
        let same = try image.warped(by: .identity)
        #expect(same.width == image.width && same.height == image.height)
        #expect(same.rgb == image.rgb)
        let before = try onlyFace(image), after = try onlyFace(same)
        #expect(abs(before.left - after.left) <= 2 && abs(before.top - after.top) <= 2)
        #expect(abs(before.width - after.width) <= 2)
    }

    /// The HOG detector finds this face on a pyramid level about half the size, where its
    /// 8-pixel cells are about 15 px of the frame: the box moves in such steps, while the
    /// landmarks follow the picture to the pixel.
    @Test func translationMovesTheFaceByItsAmount() throws {
        let image = try frame()
        let before = try onlyFace(image)
        for (dx, dy) in [(24, -16), (-18, 30), (5, 3)] {
            let moved = try image.warped(by: .translation(dx: Double(dx), dy: Double(dy)))
            let after = try onlyFace(moved)
            #expect(abs(after.left - before.left - dx) <= 8, "dx \(dx): \(before) -> \(after)")
            #expect(abs(after.top - before.top - dy) <= 8, "dy \(dy): \(before) -> \(after)")
            let (from, to) = (try landmarkCentre(image), try landmarkCentre(moved))
            #expect(abs(to.x - from.x - Double(dx)) <= 1.5 && abs(to.y - from.y - Double(dy)) <= 1.5, "landmarks \(from) -> \(to)")
            // What came from outside the input is black: the first rows after a move down.
            if dy > 0 { #expect(moved.rgb.prefix(moved.width * 3 * (dy - 1)).allSatisfy { $0 == 0 }) }
        }
    }

    @Test func warpIntoAnotherSizeScales() throws {
        let image = try frame()
        let half = try image.warped(by: .affine(a: 0.5, b: 0, c: 0, d: 0, e: 0.5, f: 0), width: image.width / 2, height: image.height / 2)
        #expect(half.width == image.width / 2 && half.height == image.height / 2)
        // The sampled pixel (x, y) of the half-size image is the input's (2x, 2y).
        let x = 60, y = 100
        let original = image.rgb[(2 * y * image.width + 2 * x) * 3], sampled = half.rgb[(y * half.width + x) * 3]
        #expect(original == sampled)
    }

    @Test func encodedJPEGDecodesToTheSamePicture() throws {
        let image = try frame()
        let jpeg = try image.jpegData(quality: 92)
        let header = try DecodedImage.header(of: jpeg)
        #expect(header.format == .jpeg && header.width == image.width && header.height == image.height)
        let decoded = try DecodedImage(data: jpeg)
        let difference = zip(decoded.rgb, image.rgb).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
        #expect(Double(difference) / Double(image.rgb.count) < 3)
        let before = try onlyFace(image), after = try onlyFace(decoded)
        #expect(abs(before.left - after.left) <= 3 && abs(before.top - after.top) <= 3)
        // Lower quality, fewer bytes.
        #expect(try image.jpegData(quality: 40).count < jpeg.count)
    }

    @Test func badArgumentsAreErrorsNotCrashes() throws {
        let image = try frame()
        #expect(throws: FaceError.self) { try image.jpegData(quality: 0) }
        #expect(throws: FaceError.self) { try image.jpegData(quality: 101) }
        #expect(throws: FaceError.self) { try image.warped(by: .affine(a: 0, b: 0, c: 0, d: 0, e: 0, f: 0)) }
        #expect(throws: FaceError.self) { try image.warped(by: .identity, width: 0, height: 10) }
        #expect(throws: FaceError.self) { try Homography(rowMajor: [1, 0, 0, 0, 1, 0, 0, 0, .nan]) }
        // A transform that sends everything to infinity gives a black picture, not a crash.
        let vanished = try image.warped(sampling: Homography(rowMajor: [1, 0, 0, 0, 1, 0, 0, 0, -1]), width: 8, height: 8)
        #expect(vanished.rgb.allSatisfy { $0 == 0 })
    }

    @Test func homographyAlgebra() throws {
        let move = Homography.translation(dx: 5, dy: -3)
        let scale = Homography.affine(a: 2, b: 0, c: 0, d: 0, e: 2, f: 0)
        let both = move.after(scale)
        let point = try #require(both.applied(to: FacePoint(x: 1, y: 1)))
        #expect(point == FacePoint(x: 7, y: -1))
        let back = try #require(both.inverse?.applied(to: point))
        #expect(abs(back.x - 1) < 1e-12 && abs(back.y - 1) < 1e-12)
        #expect(Homography.affine(a: 1, b: 2, c: 0, d: 2, e: 4, f: 0).inverse == nil)
    }
}
