import CustosCore
import Foundation
import Testing

/// Frame fingerprints and replayed takes, on synthetic luma grids: a bright square moving
/// over a gradient (a head moving in a scene).
@Suite struct SequenceReplayTests {
    /// A 32 x 32 scene with a square at `(x, y)`, plus seeded noise of `noise` grey levels.
    static func scene(x: Double, y: Double = 12, noise: Double = 0, seed: UInt64 = 0) -> FrameFingerprint {
        var state = seed &+ 0x9E37_79B9_7F4A_7C15
        func random() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53) - 0.5
        }
        let side = FrameFingerprint.gridSide
        var grid = [Double](repeating: 0, count: side * side)
        for row in 0..<side {
            for column in 0..<side {
                let inside = Double(column) >= x && Double(column) < x + 8 && Double(row) >= y && Double(row) < y + 8
                grid[row * side + column] = 40 + 3 * Double(column) + Double(row) + (inside ? 120 : 0) + noise * random()
            }
        }
        return FrameFingerprint(luma: grid)!
    }

    /// A head moving right by `step` cells a frame.
    static func take(from start: Double = 4, frames: Int = 12, step: Double = 1, y: Double = 12, noise: Double = 2,
                     seed: UInt64 = 1) -> [FrameFingerprint?] {
        (0..<frames).map { scene(x: start + step * Double($0), y: y, noise: noise, seed: seed &+ UInt64($0)) }
    }

    @Test func fingerprintIgnoresBrightnessAndContrastAndMirrorsExactly() {
        let side = FrameFingerprint.gridSide
        let grid = (0..<(side * side)).map { Double(($0 * 37) % 251) }
        let base = FrameFingerprint(luma: grid)!
        #expect(base.values.count == FrameFingerprint.length)
        #expect(abs(base.values.reduce(0) { $0 + $1 * $1 } - 1) < 1e-4)
        #expect(base.distance(to: FrameFingerprint(luma: grid.map { $0 * 0.5 + 30 })!) < 1e-5)
        let mirroredGrid = (0..<(side * side)).map { grid[($0 / side) * side + (side - 1 - $0 % side)] }
        let mirrored = FrameFingerprint(luma: mirroredGrid)!
        #expect(mirrored.distance(to: base.mirrored) < 1e-5)
        #expect(mirrored.distance(to: base) > 0.1)
        #expect(base.distanceAllowingMirror(to: mirrored) < 1e-5)
        #expect(FrameFingerprint(luma: Array(repeating: 7, count: side * side)) == nil)
        #expect(FrameFingerprint(values: [1, 2]) == nil)
    }

    @Test func aReplayedTakeLinesUpHoweverItIsCutOrPlayed() {
        let replay = SequenceReplay()
        let earlier = Self.take()
        let renoised = Self.take(noise: 2, seed: 99)   // the same motion, other codec noise
        #expect(replay.replays(renoised, earlier: earlier))
        #expect(replay.replays(Array(renoised.reversed()), earlier: earlier))
        #expect(replay.replays(Array(renoised[3...]), earlier: earlier))
        #expect(replay.replays(stride(from: 0, to: 12, by: 2).map { renoised[$0] }, earlier: earlier))
        #expect(replay.replays(renoised.map { $0?.mirrored }, earlier: earlier))
        // Padded with a second of held frames at each end (camera noise of their own), frames
        // dropped and repeated, or played at another rate: still the earlier take's run.
        let padded = (0..<12).map { Self.scene(x: 4, noise: 2, seed: 700 &+ UInt64($0)) as FrameFingerprint? } + renoised
            + (0..<12).map { Self.scene(x: 15, noise: 2, seed: 800 &+ UInt64($0)) as FrameFingerprint? }
        #expect(replay.replays(padded, earlier: earlier))
        let droppedAndRepeated = renoised.enumerated().flatMap { index, frame in index % 4 == 3 ? [] : index % 3 == 0 ? [frame, frame] : [frame] }
        #expect(replay.replays(droppedAndRepeated, earlier: earlier))
        #expect(replay.replays(renoised.flatMap { [$0, $0, $0] }, earlier: earlier))
        // Only part of a longer earlier take, padded: the run covers the new take all the same.
        let longer = Self.take(frames: 24, step: 0.5, seed: 5)
        let part = Self.take(from: 7, frames: 8, step: 0.5, noise: 2, seed: 900)
        #expect(replay.replays([Self.scene(x: 7, noise: 2, seed: 1)] + part + [Self.scene(x: 10.5, noise: 2, seed: 2)], earlier: longer))
        // Half of it replayed and half new still lines up; a third does not.
        #expect(replay.replays(Array(renoised[..<6]) + Self.take(from: 20, frames: 6, step: -1), earlier: earlier))
        #expect(!replay.replays(Array(renoised[..<3]) + Self.take(from: 20, frames: 9, step: -1), earlier: earlier))
    }

    @Test func aNewTakeOfTheSameMotionDoesNotLineUp() {
        let replay = SequenceReplay()
        let earlier = Self.take()
        // The same scene and motion with the head a little lower: a new take.
        #expect(!replay.replays(Self.take(y: 14, seed: 7), earlier: earlier))
        #expect(!replay.replays(Self.take(from: 20, step: -1, y: 13, seed: 7), earlier: earlier))
        #expect(replay.longestRun([], in: earlier.compactMap { $0 }) == 0)
    }

    @Test func framesThatComeBackAfterMovingAreARevisit() {
        let replay = SequenceReplay()
        let forward = Self.take(frames: 10, step: 1.5)
        let boomerang = forward + forward.dropLast().reversed().enumerated().map { index, frame in
            // Re-encoded: a little noise of its own.
            frame.flatMap { _ in Self.scene(x: 4 + 1.5 * Double(8 - index), noise: 2, seed: 500 &+ UInt64(index)) }
        }
        let found = replay.revisits(boomerang)
        #expect(found?.reversed == true && (found?.count ?? 0) >= 2)
        let looped = forward + Self.take(frames: 10, step: 1.5, seed: 300)
        #expect(replay.revisits(looped)?.reversed == false)
        // A still head (no motion) and a head that turns and comes back along another path.
        #expect(replay.revisits(Self.take(frames: 16, step: 0)) == nil)
        let there = Self.take(frames: 8, step: 1.5), back = Self.take(from: 14.5, frames: 8, step: -1.5, y: 13, seed: 50)
        #expect(replay.revisits(there + back) == nil)
    }

    /// The shortcut `replays` takes (no pair of frames close enough, so no run is looked for)
    /// never changes its answer: on takes near and far, cut, reversed and mirrored, it agrees
    /// with the full search.
    @Test func theClosestPairShortcutAgreesWithTheFullSearch() {
        let replay = SequenceReplay()
        let earlier = Self.take(frames: 10, step: 1.2, seed: 7)
        var candidates: [[FrameFingerprint?]] = [
            Array(earlier[2..<7]), earlier.reversed(), earlier.map { $0?.mirrored }, Self.take(frames: 5, step: 1.2, noise: 3, seed: 99),
            Self.take(from: 5, frames: 5, step: 0.6, seed: 11), Self.take(frames: 5, step: 0, seed: 3), [nil, nil, nil],
        ]
        for seed in 0..<40 {
            candidates.append(Self.take(from: Double(seed % 9), frames: 5, step: Double(seed % 5) * 0.5 - 1, y: Double(8 + seed % 7),
                                        noise: Double(seed % 4), seed: UInt64(seed * 13)))
        }
        for take in candidates {
            let (mine, theirs) = (take.compactMap { $0 }, earlier.compactMap { $0 })
            let full = replay.longestRun(mine, in: theirs) >= max(replay.minimumRun, (min(mine.count, theirs.count) + 1) / 2)
            #expect(replay.replays(take, earlier: earlier) == full)
            for case let (frame?, old?) in zip(take, earlier) {
                #expect(abs(frame.distanceToMirror(of: old) - frame.distance(to: old.mirrored)) < 1e-6)
            }
        }
        #expect(replay.replays(Array(earlier[2..<7]), earlier: earlier))
        #expect(replay.replays(earlier.map { $0?.mirrored }, earlier: earlier))
    }
}
