import CustosCore
import Foundation
import Testing

/// A synthetic head: 68 landmarks in 3-D (iBUG order) seen through a pinhole camera, so that
/// turning the head, closing the eyes and holding up a photo of it can be told apart.
struct SyntheticHead {
    /// Face-centred coordinates: x right (image), y down, z towards the camera; unit ≈ half a
    /// face width.
    var points: [(x: Double, y: Double, z: Double)] = []

    init() {
        func add(_ x: Double, _ y: Double, _ z: Double) { points.append((x, y, z)) }
        for i in 0..<17 { // jaw: ear to ear under the chin, receding at the sides
            let a = Double.pi * (1 - Double(i) / 16)
            add(cos(a), 0.1 + 1.1 * sin(a) * (i < 4 || i > 12 ? 0.6 : 1), -0.6 * abs(cos(a)))
        }
        for i in 0..<10 { // brows
            let side = i < 5 ? -1.0 : 1.0, t = Double(i % 5) / 4
            add(side * (0.75 - 0.55 * (i < 5 ? 1 - t : t)), -0.55 - 0.08 * sin(Double.pi * t), 0.25)
        }
        for i in 0..<4 { add(0, -0.35 + 0.13 * Double(i), 0.3 + 0.12 * Double(i)) } // nose bridge to tip
        for i in 0..<5 { add(-0.2 + 0.1 * Double(i), 0.2, 0.45 - 0.1 * abs(Double(i) - 2)) } // nostrils
        for side in [-1.0, 1.0] { // eyes: outer/inner corners and lids
            let cx = side * 0.4
            let xs = [cx - 0.18, cx - 0.07, cx + 0.07, cx + 0.18, cx + 0.07, cx - 0.07]
            let ys = [-0.3, -0.36, -0.36, -0.3, -0.24, -0.24]
            for k in 0..<6 { add(xs[k], ys[k], 0.2) }
        }
        for i in 0..<20 { // mouth: outer 12, inner 8
            let count = i < 12 ? 12.0 : 8.0, k = Double(i < 12 ? i : i - 12)
            let a = 2 * Double.pi * k / count
            add((i < 12 ? 0.35 : 0.25) * -cos(a), 0.5 + (i < 12 ? 0.12 : 0.05) * sin(a), 0.3)
        }
    }

    /// Landmarks of the head turned by `yaw` degrees (positive: towards the image's right),
    /// with the eyelids closed by `closing` (0 open, 1 shut) and the jaw dropped by `mouth`
    /// (0 closed, 1 wide open), 600 px from the camera.
    func face(yaw: Double = 0, closing: Double = 0, mouth: Double = 0, shift: Double = 0) -> Face {
        let a = yaw * Double.pi / 180
        var projected: [FacePoint] = []
        for (index, p) in points.enumerated() {
            var y = p.y
            if (37...38).contains(index) || (43...44).contains(index) { y += 0.06 * closing * 1.9 }
            if (40...41).contains(index) || (46...47).contains(index) { y -= 0.06 * closing * 0.1 }
            if (61...63).contains(index) || (49...53).contains(index) { y += 0.25 * mouth }  // the lower lip
            let x = p.x * cos(a) + p.z * sin(a), z = -p.x * sin(a) + p.z * cos(a)
            let scale = 100 * 6 / (6 - z)
            projected.append(FacePoint(x: 320 + shift + scale * x, y: 240 + scale * y))
        }
        return Self.face(projected, yaw: yaw)
    }

    static func face(_ points: [FacePoint], yaw: Double) -> Face {
        let xs = points.map(\.x)
        let width = Int((xs.max() ?? 0) - (xs.min() ?? 0))
        let quality = FaceQuality(faceWidth: Double(width), sharpness: 100, brightness: 120, yaw: yaw, pitch: 0, roll: 0)
        return Face(box: FaceBox(left: Int(xs.min() ?? 0), top: 100, width: width, height: width), landmarks: FaceLandmarks(five: [], sixtyEight: points),
                    quality: quality, descriptor: try? FaceDescriptor(Array(repeating: 0.1, count: 128)))
    }
}

@Suite struct LivenessDetectorTests {
    let head = SyntheticHead()
    let detector = ChallengeLivenessDetector()

    func frames(_ faces: [Face], every ms: Int64 = 100) -> [LivenessFrame] {
        faces.enumerated().map { index, face in
            LivenessFrame(capturedAtMilliseconds: 1000 + Int64(index) * ms, digest: Data([UInt8(index)]), faces: [face])
        }
    }

    func challenge(_ actions: LivenessAction...) -> LivenessChallenge {
        LivenessChallenge(actions: actions, minimumDuration: 0.5, maximumDuration: 20)
    }

    /// A photo of `face` warped by a homography (a plane tilted in front of the camera).
    func photo(_ face: Face, tiltedBy degrees: Double, aboutVertical: Bool) -> Face {
        let a = degrees * Double.pi / 180, f = 640.0
        let points = (face.landmarks.sixtyEight ?? []).map { p -> FacePoint in
            let x = p.x - 320, y = p.y - 240
            // The plane z = 0 (at distance f) rotated; reprojected.
            let (px, py, pz) = aboutVertical ? (x * cos(a), y, -x * sin(a)) : (x, y * cos(a), -y * sin(a))
            let s = f / (f - pz)
            return FacePoint(x: 320 + px * s, y: 240 + py * s)
        }
        return SyntheticHead.face(points, yaw: face.quality.yaw + (aboutVertical ? degrees / 4 : 0))
    }

    @Test func headTurnsAndBlinksPass() {
        let turning = (0..<10).map { head.face(yaw: Double($0) * 5) }
        #expect(detector.evaluate(frames(turning), challenge: challenge(.turnLeft)).passed)
        let turningBack = (0..<10).map { head.face(yaw: -Double($0) * 5) }
        #expect(detector.evaluate(frames(turningBack), challenge: challenge(.turnRight)).passed)
        #expect(detector.evaluate(frames(turningBack), challenge: challenge(.turnLeft)).failure == .actionMissing)
        let blinking = [0, 0, 0.5, 1, 1, 0.2, 0, 0].map { head.face(closing: $0) }
        #expect(detector.evaluate(frames(blinking), challenge: challenge(.blink)).passed)
        let both = [0, 0, 1, 0, 0].map { head.face(closing: $0) } + (1...8).map { head.face(yaw: Double($0) * 5) }
        #expect(detector.evaluate(frames(both), challenge: challenge(.blink, .turnLeft)).passed)
        // In order only.
        #expect(detector.evaluate(frames(both), challenge: challenge(.turnLeft, .blink)).failure == .actionMissing)
    }

    /// The mouth opens wide and closes again; a photo of a closed mouth tilted any way does
    /// not read as one once rectified.
    @Test func anOpenedMouthPassesAndATiltedPhotoDoesNot() {
        let opening = [0, 0, 0.5, 1, 1, 0.3, 0, 0].map { head.face(mouth: $0) }
        #expect(detector.evaluate(frames(opening), challenge: challenge(.openMouth)).passed)
        let halfOpen = [0, 0, 0.2, 0.2, 0, 0].map { head.face(mouth: $0) }
        #expect(detector.evaluate(frames(halfOpen), challenge: challenge(.openMouth)).failure == .actionMissing)
        let stillOpen = [0, 0, 1, 1, 1, 1].map { head.face(mouth: $0) }
        #expect(detector.evaluate(frames(stillOpen), challenge: challenge(.openMouth)).failure == .actionMissing)
        let frontal = head.face()
        for aboutVertical in [true, false] {
            let tilted = (0..<10).map { photo(frontal, tiltedBy: Double($0) * 6, aboutVertical: aboutVertical) }
            #expect(!detector.evaluate(frames(tilted), challenge: challenge(.openMouth)).passed)
        }
        // Blinking is not opening the mouth.
        let blinking = [0, 0, 0.5, 1, 1, 0.2, 0, 0].map { head.face(closing: $0) }
        #expect(detector.evaluate(frames(blinking), challenge: challenge(.openMouth)).failure == .actionMissing)
    }

    /// No action counts before the challenge's pause has passed (capture times from the first frame).
    @Test func actionsBeforeThePauseDoNotCount() {
        let blinking = [0, 0, 0.5, 1, 1, 0.2, 0, 0, 0, 0, 0, 0].map { head.face(closing: $0) }
        var paused = challenge(.blink)
        paused.pause = 0.8
        #expect(detector.evaluate(frames(blinking), challenge: paused).failure == .actionMissing)
        let late = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0.5, 1, 0.2, 0, 0].map { head.face(closing: $0) }
        #expect(detector.evaluate(frames(late), challenge: paused).passed)
        #expect(detector.evaluate(frames(blinking), challenge: challenge(.blink)).passed)
    }

    @Test func photosMovedOrTiltedAreFlat() {
        let frontal = head.face()
        let tiltedAway = (0..<10).map { photo(frontal, tiltedBy: Double($0) * 6, aboutVertical: true) }
        let verdict = detector.evaluate(frames(tiltedAway), challenge: challenge(.turnLeft))
        #expect(verdict.failure == .flatSurface, "\(verdict)")
        let nodding = (0..<10).map { photo(frontal, tiltedBy: Double($0) * 6, aboutVertical: false) }
        #expect(!detector.evaluate(frames(nodding), challenge: challenge(.blink)).passed)
        let still = (0..<6).map { head.face(shift: Double($0)) }
        #expect(detector.evaluate(frames(still), challenge: challenge(.blink)).failure == .actionMissing)
    }

    @Test func facesTimingAndReplay() {
        let open = (0..<6).map { _ in head.face() }
        var noFace = frames(open)
        noFace[2].faces = []
        #expect(detector.evaluate(noFace, challenge: challenge(.blink)).failure == .noFace)
        var two = frames(open)
        two[1].faces.append(head.face(shift: 200))
        #expect(detector.evaluate(two, challenge: challenge(.blink)).failure == .multipleFaces)
        var small = frames(open)
        small[0].faces[0].box.width = 30
        #expect(detector.evaluate(small, challenge: challenge(.blink)).failure == .faceTooSmall)
        var repeated = frames(open)
        repeated[3].digest = repeated[1].digest
        #expect(detector.evaluate(repeated, challenge: challenge(.blink)).failure == .replay)
        #expect(detector.evaluate(frames(open, every: 5), challenge: challenge(.blink)).failure == .timing)
        #expect(detector.evaluate(frames(open, every: 5000), challenge: challenge(.blink)).failure == .timing)
        #expect(detector.evaluate(frames(Array(open.prefix(2))), challenge: challenge(.blink)).failure == .timing)
        // Hostile capture times whose integer difference would overflow are a timing failure, not a trap.
        var extreme = frames(open)
        extreme[0].capturedAtMilliseconds = .min
        extreme[5].capturedAtMilliseconds = .max
        #expect(detector.evaluate(extreme, challenge: challenge(.blink)).failure == .timing)
        var other = frames(open)
        other[4].faces[0].descriptor = try? FaceDescriptor(Array(repeating: 0.5, count: 128))
        #expect(detector.evaluate(other, challenge: challenge(.blink)).failure == .identityChanged)
    }

    @Test func policyIsValidated() {
        var policy = LivenessPolicy()
        #expect(throws: Never.self) { try policy.validate() }
        policy.allowedActions = [.blink]
        #expect(throws: LivenessPolicyError.self) { try policy.validate() }
        policy.actionsPerChallenge = 1
        #expect(throws: Never.self) { try policy.validate() }
        policy.blinkClosedRatio = 0.9
        #expect(throws: LivenessPolicyError.self) { try policy.validate() }
    }
}
