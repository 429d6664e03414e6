import Foundation

/// Head pose and eye openness estimated from landmarks alone (no 3-D model): coarse, within
/// about 10 degrees for moderate poses, good for "turned left / right" and blink decisions.
public enum FacePoseEstimator {
    /// Yaw, pitch and roll in degrees (see `FaceQuality` for the signs), from 68 points when
    /// given, else from the 5 points.
    public static func pose(_ landmarks: FaceLandmarks) -> (yaw: Double, pitch: Double, roll: Double) {
        if let points = landmarks.sixtyEight, points.count == 68 { return pose68(points) }
        return pose5(landmarks.five)
    }

    /// Eye aspect ratios (subject's left, subject's right) from 68 points; nil without them.
    public static func eyeAspectRatios(_ landmarks: FaceLandmarks) -> (left: Double, right: Double)? {
        guard let points = landmarks.sixtyEight, points.count == 68 else { return nil }
        return (aspectRatio(Array(points[42...47])), aspectRatio(Array(points[36...41])))
    }

    /// (|p1-p5| + |p2-p4|) / (2 |p0-p3|) over the six points of one eye.
    static func aspectRatio(_ eye: [FacePoint]) -> Double {
        let width = eye[0].distance(to: eye[3])
        guard width > 0 else { return 0 }
        return (eye[1].distance(to: eye[5]) + eye[2].distance(to: eye[4])) / (2 * width)
    }

    private static func degrees(_ radians: Double) -> Double { radians * 180 / .pi }

    static func centroid(_ points: ArraySlice<FacePoint>) -> FacePoint {
        let n = Double(points.count)
        return FacePoint(x: points.reduce(0) { $0 + $1.x } / n, y: points.reduce(0) { $0 + $1.y } / n)
    }

    /// Rotates `point` about `origin` by -angle, so that the eye line becomes horizontal.
    private static func unrotate(_ point: FacePoint, about origin: FacePoint, angle: Double) -> FacePoint {
        let dx = point.x - origin.x, dy = point.y - origin.y
        let c = cos(-angle), s = sin(-angle)
        return FacePoint(x: dx * c - dy * s, y: dx * s + dy * c)
    }

    private static func clampedUnit(_ value: Double) -> Double { min(1, max(-1, value)) }

    static func pose68(_ points: [FacePoint]) -> (yaw: Double, pitch: Double, roll: Double) {
        let imageLeftEye = centroid(points[36...41]), imageRightEye = centroid(points[42...47])
        let angle = atan2(imageRightEye.y - imageLeftEye.y, imageRightEye.x - imageLeftEye.x)
        let origin = FacePoint.midpoint(imageLeftEye, imageRightEye)
        let nose = unrotate(points[30], about: origin, angle: angle)
        let jawLeft = unrotate(points[0], about: origin, angle: angle)
        let jawRight = unrotate(points[16], about: origin, angle: angle)
        let chin = unrotate(points[8], about: origin, angle: angle)

        // Yaw: where the nose tip sits between the two sides of the jaw.
        let toLeft = nose.x - jawLeft.x, toRight = jawRight.x - nose.x
        let yaw = toLeft + toRight > 0 ? degrees(asin(clampedUnit((toLeft - toRight) / (toLeft + toRight)))) : 0
        // Pitch: how far down from the eyes towards the chin the nose tip sits (about 0.30 on
        // frontal portraits); it rises towards the eyes as the head tilts back.
        let span = chin.y
        let pitch = span > 0 ? degrees(asin(clampedUnit((0.30 - nose.y / span) * 3))) : 0
        return (yaw, pitch, degrees(angle))
    }

    static func pose5(_ points: [FacePoint]) -> (yaw: Double, pitch: Double, roll: Double) {
        guard points.count == 5 else { return (0, 0, 0) }
        let imageRightEye = FacePoint.midpoint(points[0], points[1])
        let imageLeftEye = FacePoint.midpoint(points[2], points[3])
        let angle = atan2(imageRightEye.y - imageLeftEye.y, imageRightEye.x - imageLeftEye.x)
        let origin = FacePoint.midpoint(imageLeftEye, imageRightEye)
        let interocular = imageLeftEye.distance(to: imageRightEye)
        guard interocular > 0 else { return (0, 0, degrees(angle)) }
        let nose = unrotate(points[4], about: origin, angle: angle)
        // The nose base stands about half an inter-ocular distance in front of the eyes.
        let yaw = degrees(atan(2 * nose.x / interocular))
        // ... and about 0.75 inter-ocular distances below them on frontal faces.
        let pitch = degrees(atan((0.75 - nose.y / interocular) * 2))
        return (yaw, pitch, degrees(angle))
    }
}
