import CustosCore
import Foundation
import Testing

@Suite("Core face types")
struct FaceCoreTypesTests {
    @Test func descriptorsValidateAndMeasure() throws {
        #expect(throws: FaceError.self) { try FaceDescriptor([1, 2, 3]) }
        #expect(throws: FaceError.self) { try FaceDescriptor([Float](repeating: .nan, count: 128)) }
        let zero = try FaceDescriptor([Float](repeating: 0, count: 128))
        var values = [Float](repeating: 0, count: 128)
        values[0] = 3
        values[1] = 4
        let other = try FaceDescriptor(values)
        #expect(zero.distance(to: other) == 5)
        let json = try JSONEncoder().encode(other)
        #expect(try JSONDecoder().decode(FaceDescriptor.self, from: json) == other)
        #expect(throws: (any Error).self) { try JSONDecoder().decode(FaceDescriptor.self, from: Data("[1,2]".utf8)) }
    }

    @Test func matchPolicyDecidesAtTheThreshold() throws {
        let policy = try FaceMatchPolicy()
        #expect(policy.threshold == 0.6)
        #expect(policy.decide(distance: 0.6) == .same)
        #expect(policy.decide(distance: 0.6001) == .different)
        #expect(throws: FaceError.self) { try FaceMatchPolicy(threshold: 0) }
        #expect(throws: FaceError.self) { try FaceMatchPolicy(threshold: .nan) }
    }

    @Test func errorCodesAreStableSnakeCase() {
        let codes = FaceError.Code.allCases.map(\.rawValue)
        #expect(Set(codes).count == codes.count)
        for code in codes { #expect(code.allSatisfy { $0.isLowercase || $0 == "_" }, "\(code)") }
        for required in ["image_empty", "image_too_large", "image_truncated", "image_corrupt", "image_unsupported_format",
                         "image_dimensions_too_large"] {
            #expect(codes.contains(required))
        }
    }

    @Test func boxesOverlap() {
        let a = FaceBox(left: 0, top: 0, width: 10, height: 10)
        #expect(a.overlap(with: a) == 1)
        #expect(a.overlap(with: FaceBox(left: 5, top: 0, width: 10, height: 10)) == 50.0 / 150.0)
        #expect(a.overlap(with: FaceBox(left: 20, top: 20, width: 5, height: 5)) == 0)
    }

    /// A frontal face of 68 points, symmetric about x = 100.
    static func frontal68() -> [FacePoint] {
        var points = [FacePoint](repeating: FacePoint(x: 100, y: 100), count: 68)
        for i in 0...16 {   // jaw from (40, 80) round to (160, 80) via the chin (100, 190)
            let t = Double(i) / 16 * .pi
            points[i] = FacePoint(x: 100 - 60 * cos(t), y: 80 + 110 * sin(t))
        }
        let eye: [(Double, Double)] = [(-20, 0), (-12, -6), (-4, -6), (4, 0), (-4, 6), (-12, 6)]
        let mirror = [45, 44, 43, 42, 47, 46]   // iBUG's symmetric partner of 36...41
        for (k, offset) in eye.enumerated() {
            points[36 + k] = FacePoint(x: 70 + offset.0 + 4, y: 80 + offset.1)   // image-left eye centred at x 62
            points[mirror[k]] = FacePoint(x: 130 - offset.0 - 4, y: 80 + offset.1)
        }
        points[30] = FacePoint(x: 100, y: 113)   // nose tip, 0.30 of the way from eyes (80) to chin (190)
        points[8] = FacePoint(x: 100, y: 190)
        return points
    }

    @Test func poseOfAFrontalFaceIsNearZeroAndRollFollowsRotation() throws {
        let frontal = FaceLandmarks(five: [], sixtyEight: Self.frontal68())
        let pose = FacePoseEstimator.pose(frontal)
        #expect(abs(pose.yaw) < 1 && abs(pose.pitch) < 2 && abs(pose.roll) < 1)
        let angle = 20.0 * .pi / 180
        let rotated = Self.frontal68().map { p in
            FacePoint(x: 100 + (p.x - 100) * cos(angle) - (p.y - 100) * sin(angle), y: 100 + (p.x - 100) * sin(angle) + (p.y - 100) * cos(angle))
        }
        let turned = FacePoseEstimator.pose(FaceLandmarks(five: [], sixtyEight: rotated))
        #expect(abs(turned.roll - 20) < 0.5 && abs(turned.yaw) < 1)
        // Nose shifted towards the image's right: positive yaw.
        var right = Self.frontal68()
        right[30].x += 30
        #expect(FacePoseEstimator.pose(FaceLandmarks(five: [], sixtyEight: right)).yaw > 20)
        let ears = try #require(FacePoseEstimator.eyeAspectRatios(frontal))
        #expect(abs(ears.left - 0.5) < 0.01 && abs(ears.right - 0.5) < 0.01)
    }

    @Test func fivePointPose() {
        let five = [FacePoint(x: 140, y: 80), FacePoint(x: 115, y: 80), FacePoint(x: 60, y: 80), FacePoint(x: 85, y: 80),
                    FacePoint(x: 100, y: 121)]   // 0.75 inter-ocular distances (55) below the eyes
        let pose = FacePoseEstimator.pose(FaceLandmarks(five: five))
        #expect(abs(pose.yaw) < 1 && abs(pose.roll) < 1 && abs(pose.pitch) < 5)
    }

    @Test func faceEncodesWithStableKeys() throws {
        let face = Face(box: FaceBox(left: 1, top: 2, width: 3, height: 4, score: 0.5),
                        landmarks: FaceLandmarks(five: [FacePoint(x: 1, y: 2)]),
                        quality: FaceQuality(faceWidth: 3, sharpness: 1, brightness: 2, yaw: 0, pitch: 0, roll: 0))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(face), as: UTF8.self)
        #expect(json.contains("\"points5\":[{\"x\":1,\"y\":2}]"))
        #expect(json.contains("\"face_width\":3"))
        #expect(try JSONDecoder().decode(Face.self, from: Data(json.utf8)) == face)
    }
}
