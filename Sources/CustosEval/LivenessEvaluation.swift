import CustosCore
import CustosFace
import Foundation

/// `custos eval liveness`: genuine windows of the liveness data set and attacks made from
/// them, analysed once, then judged by a `LivenessDetector`.
public struct LivenessEvaluation {
    public struct Settings {
        /// Frames per window (and per attack sequence).
        public var window = 16
        /// Frames between the starts of consecutive windows.
        public var stride = 8
        /// The challenges: one action each.
        public var actions: [LivenessAction] = LivenessAction.measured
        /// At most this many windows per sequence (nil: all).
        public var limit: Int?
        /// Genuine frames per sequence that attacks are made from.
        public var attackSources = 3
        /// Frame rate given to sequences made from stills.
        public var stillFPS = 10.0
        public var policy = LivenessPolicy()
        public init() {}
    }

    /// A presentation and what the detector said.
    public struct Judged: Sendable {
        let presentation: LivenessPresentation
        let verdict: LivenessVerdict
    }

    public let genuine: [Judged]
    public let attacks: [Judged]
    public let skipped: SkippedWindows
    /// Genuine windows judged against every earlier, non-overlapping window of their sequence
    /// as the server remembers takes: how many had one, and how many were taken for a replay.
    public let takesCompared: Int
    public let takesRefusedAsReplays: Int

    public init(data: LivenessDataSet, analysis: LivenessFrameAnalysis, detector: any LivenessDetector, settings: Settings,
         threads: Int) throws {
        let windows = try Self.candidateWindows(data, settings: settings)
        analysis.analyse(windows.flatMap(\.frames))
        var skipped = SkippedWindows()
        var genuine: [LivenessPresentation] = []
        var genuineWindows: [Window] = []
        for window in windows {
            switch Self.label(window, analysis: analysis, policy: settings.policy) {
            case .action(let action) where settings.actions.contains(action):
                genuineWindows.append(window)
                genuine.append(LivenessPresentation(kind: .genuine(sequence: window.sequence.name), source: window.paths[window.start],
                                                    action: action, frames: Array(window.frames), fps: window.sequence.fps))
            case .action: skipped.actionNotSelected += 1
            case .noAction: skipped.noAction += 1
            case .noFaceAtEnds: skipped.noFaceAtEnds += 1
            }
        }
        let recipes = Self.attackRecipes(data, windows: windows, analysis: analysis, settings: settings)
        let made = ParallelMap.map(recipes, threads: threads) { recipe in
            Result { () throws(FaceError) in try recipe.make().map(DigestedFrame.init) }
        }
        var attacks: [LivenessPresentation] = []
        for (recipe, result) in zip(recipes, made) {
            let frames = try result.get()
            for action in recipe.actions {
                attacks.append(LivenessPresentation(kind: .attack(recipe.type), source: recipe.source, action: action,
                                                    frames: frames, fps: recipe.fps))
            }
        }
        attacks += try Self.takeAttacks(genuine, threads: threads)
        analysis.analyse(attacks.flatMap(\.frames))
        let replay = settings.policy.replay
        let judge = { (presentation: LivenessPresentation) in
            if !presentation.earlierTake.isEmpty,
               replay.replays(analysis.fingerprints(presentation.frames), earlier: analysis.fingerprints(presentation.earlierTake)) {
                return Judged(presentation: presentation, verdict: .fail(.replay, "the take lines up with the earlier one"))
            }
            let challenge = LivenessChallenge(actions: presentation.actions, minimumDuration: settings.policy.minimumDuration,
                                              maximumDuration: settings.policy.maximumDuration)
            return Judged(presentation: presentation,
                          verdict: detector.evaluate(analysis.livenessFrames(presentation.frames, fps: presentation.fps), challenge: challenge))
        }
        self.genuine = genuine.map(judge)
        self.attacks = attacks.map(judge)
        self.skipped = skipped
        (takesCompared, takesRefusedAsReplays) = Self.genuineTakesAgainstMemory(genuineWindows, analysis: analysis, replay: replay)
    }

    // MARK: Replayed takes

    /// Each genuine window replayed with other bytes (remembered as submitted before), and each
    /// turn window played forward then backward against the turn and its opposite.
    public static func takeAttacks(_ genuine: [LivenessPresentation], threads: Int) throws -> [LivenessPresentation] {
        let types = LivenessAttackType.allCases.filter { $0.takeReplay != nil }
        let jobs = genuine.flatMap { take in types.map { (take, $0) } }
            + genuine.filter { $0.action != .blink }.map { ($0, LivenessAttackType.boomerang) }
        let made = ParallelMap.map(jobs, threads: threads) { (job: (LivenessPresentation, LivenessAttackType)) -> Result<[Data], FaceError> in
            Result { () throws(FaceError) -> [Data] in
                let bytes = job.0.frames.map { $0.bytes }
                if let replay = job.1.takeReplay { return try PresentationAttacks.replayedTake(bytes, replay) }
                return try PresentationAttacks.boomerang(bytes)
            }
        }
        return try zip(jobs, made).map { job, result in
            let (take, type) = job
            let frames = try result.get().map(DigestedFrame.init)
            if type == .boomerang {
                let back: LivenessAction = take.action == .turnLeft ? .turnRight : .turnLeft
                return LivenessPresentation(kind: .attack(type), source: take.source, actions: [take.action, back], frames: frames, fps: take.fps)
            }
            return LivenessPresentation(kind: .attack(type), source: take.source, actions: take.actions, frames: frames, fps: take.fps,
                                        earlierTake: take.frames)
        }
    }

    /// A new take must not be refused for lining up with an earlier one of the same person:
    /// every genuine window against each earlier window of its sequence that shares no frame.
    public static func genuineTakesAgainstMemory(_ windows: [Window], analysis: LivenessFrameAnalysis,
                                          replay: SequenceReplay) -> (compared: Int, refused: Int) {
        var compared = 0, refused = 0
        for window in windows {
            let earlier = windows.filter { $0.sequence.name == window.sequence.name && $0.start + $0.frames.count <= window.start }
            guard !earlier.isEmpty else { continue }
            compared += 1
            let take = analysis.fingerprints(Array(window.frames))
            if earlier.contains(where: { replay.replays(take, earlier: analysis.fingerprints(Array($0.frames))) }) { refused += 1 }
        }
        return (compared, refused)
    }

    // MARK: Genuine windows

    /// A run of a sequence's frames. Overlapping windows share the frames, read once per
    /// sequence; the slices keep the sequence's indices (the first is `start`).
    public struct Window {
        let sequence: LivenessDataSet.Sequence
        /// Index of the first frame in the sequence.
        let start: Int
        let paths: ArraySlice<String>
        let frames: ArraySlice<DigestedFrame>
    }

    public static func candidateWindows(_ data: LivenessDataSet, settings: Settings) throws -> [Window] {
        var windows: [Window] = []
        for sequence in data.sequences where sequence.paths.count >= settings.window {
            let all = Array(stride(from: 0, through: sequence.paths.count - settings.window, by: settings.stride))
            let starts = all.prefix(settings.limit ?? all.count)
            guard let last = starts.last else { continue }
            // Each frame any window uses, read and hashed once.
            let frames = try sequence.paths[..<(last + settings.window)].map { path in DigestedFrame(try EvalFiles.read(path)) }
            for start in starts {
                let range = start..<(start + settings.window)
                windows.append(Window(sequence: sequence, start: start, paths: sequence.paths[range], frames: frames[range]))
            }
        }
        return windows
    }

    public enum Label: Equatable {
        case action(LivenessAction)
        case noAction
        case noFaceAtEnds
    }

    /// Blink sequences: a blink when an eyes-closed range of the manifest lies inside the
    /// window with open frames on both sides. Turn sequences: the direction of the yaw change
    /// from the first to the last frame, when it reaches the policy's turn size.
    public static func label(_ window: Window, analysis: LivenessFrameAnalysis, policy: LivenessPolicy) -> Label {
        if window.sequence.isBlinkSequence {
            let first = window.start + 1, last = window.start + window.frames.count   // 1-based frame numbers
            return window.sequence.eyesClosed.contains { $0.lowerBound > first && $0.upperBound < last } ? .action(.blink) : .noAction
        }
        guard let firstFrame = window.frames.first, let lastFrame = window.frames.last,
              let startYaw = analysis.faces(firstFrame).first?.quality.yaw,
              let endYaw = analysis.faces(lastFrame).first?.quality.yaw else { return .noFaceAtEnds }
        // Yaw grows when the subject turns to their left (LivenessAction).
        if endYaw - startYaw >= policy.turnDegrees { return .action(.turnLeft) }
        if startYaw - endYaw >= policy.turnDegrees { return .action(.turnRight) }
        return .noAction
    }

    // MARK: Attacks

    /// How to make one attack sequence, and the challenges it is judged against.
    public struct Recipe: Sendable {
        let type: LivenessAttackType
        let source: String
        let bytes: Data
        let fps: Double
        let count: Int
        let seed: UInt64
        let actions: [LivenessAction]

        /// Perspective attacks are made per challenge, tilted to fake its (one) action.
        var tilted: Bool { [.perspectivePhoto, .printPerspective, .screenPerspective, .liveStillPerspective].contains(type) }

        /// The same recipe for one challenge.
        func judged(against action: LivenessAction) -> Recipe {
            Recipe(type: type, source: source, bytes: bytes, fps: fps, count: count, seed: seed, actions: [action])
        }

        func make() throws(FaceError) -> [Data] {
            switch type {
            case .repeatedFrame: return PresentationAttacks.repeatedFrame(bytes, count: count)
            case .reencodedFrame: return try PresentationAttacks.reencodedFrames(bytes, count: count, seed: seed)
            case .affinePhoto, .printAffine, .screenAffine, .liveStillAffine:
                return try PresentationAttacks.affinePhoto(bytes, count: count, seed: seed)
            case .perspectivePhoto, .printPerspective, .screenPerspective, .liveStillPerspective:
                let tilt: PhotoTilt
                switch actions.first ?? .blink {
                case .blink, .openMouth: tilt = .nod
                case .turnLeft: tilt = .turnLeft
                case .turnRight: tilt = .turnRight
                }
                return try PresentationAttacks.perspectivePhoto(bytes, count: count, tilt: tilt, seed: seed)
            case .takeBytesAppended, .takeReencoded, .takeResized, .takeMirrored, .takeReversed, .takeCropped, .takeResizedPadded,
                 .takeCroppedPadded, .takeDroppedRepeated, .takePartPadded, .boomerang:
                // Made from whole windows (`takeAttacks`), never from a single frame.
                throw FaceError(.invalidOptions, "\(type.rawValue) is made from a take, not a frame")
            }
        }
    }

    /// From each sequence, `attackSources` frames spread over its windows (one face, eyes
    /// open) replayed, re-encoded, moved and tilted; each still moved and tilted.
    public static func attackRecipes(_ data: LivenessDataSet, windows: [Window], analysis: LivenessFrameAnalysis,
                              settings: Settings) -> [Recipe] {
        var recipes: [Recipe] = []
        var seed: UInt64 = 0
        func add(_ type: LivenessAttackType, _ source: String, _ bytes: Data, fps: Double) {
            seed += 1
            let recipe = Recipe(type: type, source: source, bytes: bytes, fps: fps, count: settings.window, seed: seed,
                                actions: settings.actions)
            recipes += recipe.tilted ? settings.actions.map { recipe.judged(against: $0) } : [recipe]
        }
        for sequence in data.sequences {
            var candidates: [(path: String, frame: DigestedFrame)] = []
            for window in windows where window.sequence.name == sequence.name {
                for (offset, (path, frame)) in zip(window.paths, window.frames).enumerated() {
                    let number = window.start + offset + 1
                    guard analysis.faces(frame).count == 1, !sequence.eyesClosed.contains(where: { $0.contains(number) }),
                          !candidates.contains(where: { $0.path == path }) else { continue }
                    candidates.append((path, frame))
                }
            }
            let count = min(settings.attackSources, candidates.count)
            for index in 0..<count {
                let chosen = candidates[index * candidates.count / count]
                for type in [LivenessAttackType.repeatedFrame, .reencodedFrame, .affinePhoto, .perspectivePhoto] {
                    add(type, chosen.path, chosen.frame.bytes, fps: sequence.fps)
                }
            }
        }
        for still in data.stills {
            guard let types = LivenessAttackType.forStill(kind: still.kind),
                  let bytes = try? EvalFiles.read(still.path) else { continue }
            add(types.affine, still.path, bytes, fps: settings.stillFPS)
            add(types.perspective, still.path, bytes, fps: settings.stillFPS)
        }
        return recipes
    }
}
