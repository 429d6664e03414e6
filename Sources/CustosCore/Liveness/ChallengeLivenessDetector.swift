import Foundation

/// Liveness from a challenge-response capture, on 68-point landmarks, head pose,
/// descriptors and frame fingerprints. In order: timing, replayed frames (repeated bytes, or
/// frames that come back after the head moved: a clip played back or looped), one face of usable size per frame, one
/// identity throughout, the flat-surface test, then the challenge's actions in order.
///
/// It stops still photos, repeated frames, photos or screens moved or tilted in front of
/// the camera (their landmarks move as one plane: a homography explains them, and a
/// tilted photo's squashed eyes do not read as a blink once rectified), and captures made
/// for another challenge. It does not stop a video of the person that happens to perform the
/// asked actions in order, a 3-D mask, or a deep-fake injected as camera frames; a trained
/// presentation-attack model can be added as another `LivenessDetector`.
public struct ChallengeLivenessDetector: LivenessDetector {
    public let policy: LivenessPolicy

    public init(policy: LivenessPolicy = LivenessPolicy()) {
        self.policy = policy
    }

    /// Jaw, nose and eye corners: the points that move with the skull, not with expressions.
    static let rigidPoints: [Int] = Array(0...16) + Array(27...35) + [36, 39, 42, 45]

    public func evaluate(_ frames: [LivenessFrame], challenge: LivenessChallenge) -> LivenessVerdict {
        if let problem = timingProblem(frames, challenge: challenge) { return .fail(.timing, problem) }
        // A camera that sends the same frame twice in a row (it had no new one yet) shows no
        // motion there: the repeat is set aside, not taken for a replay. A frame that comes
        // back later, byte for byte, is one.
        let sent = frames.count
        let frames = frames.enumerated().filter { $0.offset == 0 || $0.element.digest != frames[$0.offset - 1].digest }.map(\.element)
        guard frames.count >= policy.minimumFrames else {
            return .fail(.replay, "the \(sent) frames hold only \(frames.count) different pictures: the same picture was sent again and again")
        }
        if Set(frames.map(\.digest)).count != frames.count { return .fail(.replay, "a frame comes back later in the capture, byte for byte") }
        if let revisits = policy.replay.revisits(frames.map(\.fingerprint)) {
            return revisits.reversed ? .fail(.sequenceReversed, "\(revisits.count) frames come back in reverse order after the head moved")
                : .fail(.replay, "\(revisits.count) frames come back after the head moved")
        }
        var shapes: [FrameShape] = []
        for (index, frame) in frames.enumerated() {
            guard let face = frame.faces.first else { return .fail(.noFace, "frame \(index + 1) shows no face") }
            guard frame.faces.count == 1 else { return .fail(.multipleFaces, "frame \(index + 1) shows \(frame.faces.count) faces") }
            guard Double(face.box.width) >= policy.minimumFaceWidth else {
                return .fail(.faceTooSmall, "the face in frame \(index + 1) is narrower than \(Int(policy.minimumFaceWidth)) px")
            }
            guard let shape = FrameShape(face) else { return .fail(.noFace, "frame \(index + 1) has no usable landmarks") }
            shapes.append(shape)
        }
        if let problem = identityProblem(frames) { return .fail(.identityChanged, problem) }
        let geometry = CaptureGeometry(shapes)
        if geometry.maximumDeformation >= policy.flatMinimumDeformation,
           geometry.maximumPlanarResidual < policy.flatResidualRatio * geometry.maximumDeformation {
            return .fail(.flatSurface, "the face moved as a flat surface")
        }
        // No action counts before the challenge's pause has passed.
        let pauseEnd = frames[0].capturedAtMilliseconds + Int64((challenge.pause * 1000).rounded())
        var start = frames.firstIndex { $0.capturedAtMilliseconds >= pauseEnd } ?? frames.count
        for (number, action) in challenge.actions.enumerated() {
            switch find(action, in: geometry, from: start) {
            case .performed(let end): start = end
            case .flat: return .fail(.flatSurface, "\(action.rawValue) (action \(number + 1)) moved the face as a flat surface")
            case .missing:
                return .fail(.actionMissing, "\(action.rawValue) (action \(number + 1)) was not performed after frame \(min(start + 1, frames.count))")
            }
        }
        return .pass("\(frames.count) frames, actions \(challenge.actions.map(\.rawValue).joined(separator: ",")) performed")
    }

    private func timingProblem(_ frames: [LivenessFrame], challenge: LivenessChallenge) -> String? {
        guard frames.count >= policy.minimumFrames else { return "\(frames.count) frames; at least \(policy.minimumFrames) are needed" }
        for index in 1..<frames.count {
            let gap = Self.seconds(from: frames[index - 1], to: frames[index])
            guard gap >= policy.minimumFrameInterval else { return "frame \(index + 1) is not later than frame \(index) by a camera's frame interval" }
            guard gap <= policy.maximumFrameGap else { return "frames \(index) and \(index + 1) are \(gap) s apart" }
        }
        let duration = Self.seconds(from: frames[0], to: frames[frames.count - 1])
        guard duration >= challenge.minimumDuration, duration <= challenge.maximumDuration else {
            return "the capture lasted \(duration) s, outside \(challenge.minimumDuration)-\(challenge.maximumDuration) s"
        }
        return nil
    }

    /// Seconds between two frames' capture times, in floating point: client-supplied times
    /// can be any Int64, and their integer difference could overflow.
    private static func seconds(from first: LivenessFrame, to second: LivenessFrame) -> Double {
        (Double(second.capturedAtMilliseconds) - Double(first.capturedAtMilliseconds)) / 1000
    }

    private func identityProblem(_ frames: [LivenessFrame]) -> String? {
        let descriptors = frames.compactMap { $0.faces.first?.descriptor }
        guard descriptors.count == frames.count, let first = descriptors.first else { return "a frame has no descriptor" }
        for (index, descriptor) in descriptors.enumerated().dropFirst() where first.distance(to: descriptor) > policy.identityDistance {
            return "frame \(index + 1) shows another person than frame 1"
        }
        return nil
    }

    private enum ActionSearch { case performed(Int), missing, flat }

    private func find(_ action: LivenessAction, in geometry: CaptureGeometry, from start: Int) -> ActionSearch {
        let count = geometry.shapes.count
        guard start + 1 < count else { return .missing }
        switch action {
        case .turnLeft, .turnRight:
            let sign = action == .turnLeft ? 1.0 : -1.0
            var extreme: (yaw: Double, index: Int)?
            for end in start..<count where abs(geometry.shapes[end].yaw) <= policy.maximumTurnYaw {
                let yaw = sign * geometry.shapes[end].yaw
                if let from = extreme, yaw - from.yaw >= policy.turnDegrees {
                    // A tilted photo changes the estimated yaw too, but stays one plane.
                    let parallax = ((from.index + 1)...end).map { geometry.planarResidual(from: from.index, to: $0) }.max() ?? 0
                    return parallax >= policy.turnParallax ? .performed(end) : .flat
                }
                if yaw < (extreme?.yaw ?? .infinity) { extreme = (yaw, end) }
            }
            return .missing
        case .blink:
            var open = 0.0
            var closed = false
            for index in start..<count where abs(geometry.shapes[index].yaw) <= policy.maximumBlinkYaw {
                let ratio = geometry.eyeAspectRatios[index]
                if !closed {
                    if ratio <= policy.blinkClosedRatio * open { closed = true } else { open = max(open, ratio) }
                } else if ratio >= policy.blinkReopenedRatio * open {
                    return .performed(index)
                }
            }
            return .missing
        case .openMouth:
            var wasClosed = false, opened = false
            for index in start..<count where abs(geometry.shapes[index].yaw) <= policy.maximumBlinkYaw {
                let ratio = geometry.mouthAspectRatios[index]
                if ratio <= policy.mouthClosedRatio {
                    if opened { return .performed(index) }
                    wasClosed = true
                } else if wasClosed, ratio >= policy.mouthOpenRatio {
                    opened = true
                }
            }
            return .missing
        }
    }
}

/// The landmarks of one frame that liveness looks at.
struct FrameShape {
    let points: [FacePoint]
    let yaw: Double
    /// Distance between the eye centres, the unit of every residual.
    let interocular: Double

    init?(_ face: Face) {
        guard let points = face.landmarks.sixtyEight, points.count == 68 else { return nil }
        let left = FacePoseEstimator.centroid(points[36...41]), right = FacePoseEstimator.centroid(points[42...47])
        let interocular = left.distance(to: right)
        guard interocular > 1 else { return nil }
        self.points = points
        self.yaw = face.quality.yaw
        self.interocular = interocular
    }

    var rigid: [FacePoint] { ChallengeLivenessDetector.rigidPoints.map { points[$0] } }

    /// Mean eye aspect ratio (height over width) of both eyes.
    static func eyeAspectRatio(_ points: [FacePoint]) -> Double {
        (FacePoseEstimator.aspectRatio(Array(points[36...41])) + FacePoseEstimator.aspectRatio(Array(points[42...47]))) / 2
    }

    /// Inner-lip aspect ratio: the mean opening between the inner lips (points 61-67, 62-66,
    /// 63-65) over the distance between the mouth's inner corners (60-64).
    static func mouthAspectRatio(_ points: [FacePoint]) -> Double {
        let width = points[60].distance(to: points[64])
        guard width > 0 else { return 0 }
        return (points[61].distance(to: points[67]) + points[62].distance(to: points[66]) + points[63].distance(to: points[65])) / 3 / width
    }
}

/// The motion of a capture relative to its first frame.
struct CaptureGeometry {
    let shapes: [FrameShape]
    /// Per frame: how far the rigid points deviate from a similarity of frame 1's, and from a
    /// homography of them (inter-ocular distances).
    let deformation: [Double]
    let planar: [Double]
    /// Per frame: the eye aspect ratio after mapping the frame back onto frame 1's plane, so
    /// that tilting a photo (which squashes the eyes) is not a blink.
    let eyeAspectRatios: [Double]
    /// Per frame: the inner-lip aspect ratio.
    let mouthAspectRatios: [Double]

    init(_ shapes: [FrameShape]) {
        self.shapes = shapes
        let reference = shapes[0].rigid
        var deformation: [Double] = [], planar: [Double] = [], ratios: [Double] = [], mouths: [Double] = []
        for shape in shapes {
            let rigid = shape.rigid
            deformation.append(PlaneFit.similarityResidual(from: reference, to: rigid) / shape.interocular)
            let fit = PlaneFit.homographyResidual(from: reference, to: rigid)
            planar.append(fit.residual / shape.interocular)
            let rectified = fit.homography?.inverse.map { back in shape.points.map(back.apply) } ?? shape.points
            ratios.append(FrameShape.eyeAspectRatio(rectified))
            // Not rectified: the jaw is among the rigid points and drops as the mouth opens, so
            // rectifying would undo the opening. A tilted photo only lowers the ratio (pitch) or
            // raises it by 1/cos(yaw), far short of an opened mouth within the judged yaw.
            mouths.append(FrameShape.mouthAspectRatio(shape.points))
        }
        self.deformation = deformation
        self.planar = planar
        eyeAspectRatios = ratios
        mouthAspectRatios = mouths
    }

    var maximumDeformation: Double { deformation.max() ?? 0 }
    var maximumPlanarResidual: Double { planar.max() ?? 0 }

    /// The homography residual of frame `to` against frame `from`.
    func planarResidual(from: Int, to: Int) -> Double {
        PlaneFit.homographyResidual(from: shapes[from].rigid, to: shapes[to].rigid).residual / shapes[to].interocular
    }
}
