import CustosCore
import CustosFace
import CustosTestSupport
import Foundation
import Testing

@Suite("Detection, landmarks and quality over ../shared/data/faces", needsSharedData)
struct FaceDetectionTests {
    @Test func everyPortraitHasAFace() throws {
        for row in try Fixtures.files(kind: "portrait") {
            let file = try #require(row["file"])
            let faces = try Fixtures.faces(file)
            #expect(!faces.isEmpty, "\(file)")
            if let face = Fixtures.largest(faces) {
                #expect(face.landmarks.five.count == 5)
                #expect(face.descriptor != nil)
                #expect(face.quality.faceWidth >= 40)
            }
        }
    }

    /// Annotated counts (dlib's XML files and the manifest's named faces).
    static let annotatedGroups: [(String, Int)] = [
        ("group/two_people.jpg", 2), ("group/kit_with_rose.jpg", 2), ("group/couple.jpg", 2), ("group/multiface.jpg", 6),
        ("group/2007_007763.jpg", 7), ("group/2008_002470.jpg", 6), ("small/2008_004176.jpg", 7),
        ("small/2008_002079.jpg", 6), ("small/obama-240p.jpg", 1),
    ]

    @Test(arguments: annotatedGroups)
    func groupPhotosReturnEveryAnnotatedFace(file: String, annotated: Int) throws {
        let faces = try Fixtures.faces(file)
        #expect(faces.count >= annotated, "\(file): \(faces.count) of \(annotated)")
        // Distinct faces, not one face found twice.
        for (i, a) in faces.enumerated() {
            for b in faces[(i + 1)...] { #expect(a.box.overlap(with: b.box) < 0.5) }
        }
    }

    @Test func groupFacesAreInTheAnnotatedOrderLeftToRight() throws {
        let engine = try Fixtures.engine()
        let faces = try Fixtures.faces("group/two_people.jpg").sorted { $0.box.left < $1.box.left }
        try #require(faces.count == 2)
        let obama = try #require(Fixtures.largest(try Fixtures.faces("identities/Barack_Obama/obama.jpg"))?.descriptor)
        let biden = try #require(Fixtures.largest(try Fixtures.faces("identities/Joe_Biden/biden.jpg"))?.descriptor)
        let left = try #require(faces[0].descriptor), right = try #require(faces[1].descriptor)
        #expect(engine.distance(left, obama) < FaceMatchPolicy.defaultThreshold)
        #expect(engine.distance(right, biden) < FaceMatchPolicy.defaultThreshold)
        #expect(engine.distance(left, biden) > FaceMatchPolicy.defaultThreshold)
    }

    @Test func noFaceImagesYieldAnEmptyList() throws {
        let rows = try Fixtures.files(kind: "noface")
        #expect(rows.count == 8)
        for row in rows {
            let file = try #require(row["file"])
            for options in [FaceOptions.selfie, .thorough] {
                #expect(try Fixtures.faces(file, options).isEmpty, "\(file)")
            }
        }
    }

    @Test func exifRotatedImagesGiveTheFacesOfTheirUprightCopy() throws {
        let engine = try Fixtures.engine()
        let upright = try Fixtures.faces("exif/hopper.jpg")
        try #require(upright.count == 1)
        for file in ["exif/hopper_orientation_6.jpg", "exif/hopper_orientation_3.jpg"] {
            let rotated = try Fixtures.faces(file)
            try #require(rotated.count == 1, "\(file)")
            #expect(rotated[0].box.overlap(with: upright[0].box) > 0.8, "\(file)")
            for (a, b) in zip(rotated[0].landmarks.five, upright[0].landmarks.five) { #expect(a.distance(to: b) <= 3) }
            let distance = engine.distance(try #require(rotated[0].descriptor), try #require(upright[0].descriptor))
            #expect(distance < 0.25, "\(file): \(distance)")   // re-encoded JPEG: close, far below 0.6
        }
        // A phone capture stored sideways: found upright, not when the tag is ignored.
        let phone = try Fixtures.data("exif/image_T1.jpg")
        #expect(try engine.analyze(phone, options: .selfie).count == 1)
        let sideways = try DecodedImage(data: phone, limits: ImageLimits(applyExifOrientation: false))
        #expect(try engine.analyze(sideways, options: .selfie).isEmpty)
    }

    @Test func grayscaleImagesWork() throws {
        let engine = try Fixtures.engine()
        let gray = try #require(Fixtures.largest(try Fixtures.faces("gray/Jennifer_Aniston_img55_gray.jpg"))?.descriptor)
        let colour = try #require(Fixtures.largest(try Fixtures.faces("identities/Jennifer_Aniston/img55.jpg"))?.descriptor)
        #expect(engine.distance(gray, colour) < 0.3)
        #expect(try Fixtures.faces("gray/hopper_gray.jpg").count == 1)
    }

    @Test func largeInputsAreDetectedOnADownscaledCopyWithBoxesMappedBack() throws {
        let full = try #require(Fixtures.largest(try Fixtures.faces("identities/Marissa_Mayer/img23.jpg", FaceOptions(maxDetectionSide: nil))))
        let scaled = try #require(Fixtures.largest(try Fixtures.faces("identities/Marissa_Mayer/img23.jpg", FaceOptions(maxDetectionSide: 640))))
        #expect(full.box.overlap(with: scaled.box) > 0.6)
        #expect(try Fixtures.engine().distance(try #require(full.descriptor), try #require(scaled.descriptor)) < 0.2)
    }

    @Test func sixtyEightPointLandmarksAndQuality() throws {
        let engine = try Fixtures.engine()
        #expect(engine.has68PointLandmarks)
        let face = try #require(Fixtures.largest(try Fixtures.faces("identities/Barack_Obama/obama.jpg", .selfie)))
        #expect(face.landmarks.sixtyEight?.count == 68)
        #expect(abs(face.quality.yaw) < 15 && abs(face.quality.roll) < 10)
        #expect(face.quality.sharpness > 50 && (60...200).contains(face.quality.brightness))
        #expect((0.15...0.45).contains(try #require(face.quality.leftEyeAspectRatio)))
        // The near-full profile reads as a large yaw.
        let profile = try #require(Fixtures.largest(try Fixtures.faces("profile/emma_profile_crop.jpg", .selfie)))
        #expect(abs(profile.quality.yaw) > 45)
        // A blurred copy is less sharp.
        let source = try DecodedImage(data: try Fixtures.data("identities/Barack_Obama/obama.jpg"))
        let blurred = try DecodedImage(rgb: boxBlur(source.rgb, width: source.width, height: source.height, radius: 3),
                                       width: source.width, height: source.height)
        let soft = try #require(Fixtures.largest(try engine.analyze(blurred, options: .selfie)))
        #expect(soft.quality.sharpness < face.quality.sharpness / 2)
    }

    @Test func fivePointOnlyOptionsLeaveThe68PointsOut() throws {
        let face = try #require(Fixtures.largest(try Fixtures.faces("identities/Barack_Obama/obama.jpg", .peerDefaults)))
        #expect(face.landmarks.sixtyEight == nil && face.quality.leftEyeAspectRatio == nil)
    }

    @Test func optionsAreValidated() throws {
        let data = try Fixtures.data("exif/hopper.jpg")
        for options in [FaceOptions(upsample: 5), FaceOptions(maxDetectionSide: 8), FaceOptions(jitters: -1)] {
            #expect(throws: FaceError.self) { try Fixtures.engine().analyze(data, options: options) }
        }
    }

    private func boxBlur(_ rgb: [UInt8], width: Int, height: Int, radius: Int) -> [UInt8] {
        var out = rgb
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<3 {
                    var sum = 0, count = 0
                    for dy in -radius...radius where (0..<height).contains(y + dy) {
                        for dx in -radius...radius where (0..<width).contains(x + dx) {
                            sum += Int(rgb[((y + dy) * width + x + dx) * 3 + c])
                            count += 1
                        }
                    }
                    out[(y * width + x) * 3 + c] = UInt8(sum / count)
                }
            }
        }
        return out
    }
}
