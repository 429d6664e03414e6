import Foundation

/// Replays that survive re-encoding, resizing and padding, judged on frame fingerprints
/// (`FrameFingerprint`).
///
/// A single frame cannot tell a replay from a new capture of a person holding still: both
/// show the same picture. A sequence can. A replayed take (bytes appended, re-encoded,
/// resized, mirrored, played backwards, faster or slower, frames dropped or repeated, held
/// frames added at its ends, or only part of an earlier, longer take) holds an ordered run of
/// the earlier take's frames, each matched at codec-noise distances; a new take of the same
/// person holds no such run, because its motion is new (and a still head's frames differ by
/// more than codec noise: see `alignedDistance`). The run needs to cover only part of the
/// shorter take, so frames of the replay's own around it (held frames, camera noise) dilute
/// nothing. A crop is not seen: it changes the whole frame's fingerprint (a 2% change of scale
/// moves it by about 0.08, ten times `alignedDistance`). Within one capture,
/// a frame that comes back (a clip played forward then backward to fake two turns, or looped)
/// is closer to an earlier, non-neighbouring frame than to its own neighbours although the
/// head moved in between.
public struct SequenceReplay: Sendable, Hashable, Codable {
    /// Two frames show the same picture (a replay) when their fingerprints are closer than
    /// this. On the liveness data (`bench/liveness.sh`) replayed frames come within 0.0013
    /// (bytes appended, re-encoded, mirrored, reversed) and 0.0065 (resized to 80%) of their
    /// originals; a new take of a person holding still comes no closer than 0.0117.
    public var alignedDistance = 0.008
    /// How much of the shorter take the run must cover…
    public var minimumOverlap = 0.5
    /// …and at least this many frames.
    public var minimumRun = 3
    /// A frame "comes back" when it is this close to an earlier, non-neighbouring frame…
    public var revisitDistance = 0.008
    /// …at most this fraction of its distance to its neighbours…
    public var revisitRatio = 0.5
    /// …and its neighbours moved at least this much (a turning head, not a still one).
    public var revisitMotion = 0.015
    /// Frames that come back on one line before the capture is refused.
    public var revisitsToRefuse = 2

    public init() {}

    /// Whether `take` replays `earlier` (or its mirror image): an ordered run of `earlier`'s
    /// frames — forwards or backwards, at any rate — covers enough of the shorter take.
    public func replays(_ take: [FrameFingerprint?], earlier: [FrameFingerprint?]) -> Bool {
        // No run is longer than the pairs close enough to join one: when no frame of the take
        // comes that close to an earlier frame or its mirror image (a new take, almost always),
        // no run is looked for.
        guard Self.closestPair(take, earlier) < alignedDistance else { return false }
        let (mine, theirs) = (take.compactMap { $0 }, earlier.compactMap { $0 })
        return longestRun(mine, in: theirs) >= needed(mine.count, theirs.count)
    }

    /// The run that makes a replay, between takes of `mine` and `theirs` frames: at
    /// least `minimumRun`, and `minimumOverlap` of the shorter take. Of the shorter, so that
    /// neither padding the replay (frames of its own around the run) nor replaying only part of
    /// a longer earlier take dilutes it.
    public func needed(_ mine: Int, _ theirs: Int) -> Int {
        max(minimumRun, Int((minimumOverlap * Double(min(mine, theirs))).rounded(.up)))
    }

    /// The smallest distance between a frame of `take` and a frame of `earlier` or its mirror image.
    static func closestPair(_ take: [FrameFingerprint?], _ earlier: [FrameFingerprint?]) -> Double {
        var closest = Double.infinity
        for case let frame? in take {
            for case let old? in earlier {
                closest = min(closest, frame.distanceAllowingMirror(to: old))
            }
        }
        return closest
    }

    /// The most frames of `take` matched, in their order, to frames of `earlier` (or their
    /// mirror images) in theirs or in reverse, any frames skipped on either side: the longest
    /// common subsequence under the `alignedDistance` match, in O(take x earlier).
    public func longestRun(_ take: [FrameFingerprint], in earlier: [FrameFingerprint]) -> Int {
        guard !take.isEmpty, !earlier.isEmpty else { return 0 }
        var best = 0
        // One match table: a frame matches an earlier one or its mirror image.
        let close = take.map { frame in earlier.map { old in frame.distanceAllowingMirror(to: old) < alignedDistance } }
        for backwards in [false, true] {
            let columns = backwards ? Array(earlier.indices.reversed()) : Array(earlier.indices)
            // lengths[c]: the longest run over the take's frames so far ending at or before
            // column c (in walking order); the classic one-row LCS table.
            var lengths = [Int](repeating: 0, count: earlier.count + 1)
            for row in take.indices {
                var next = [Int](repeating: 0, count: earlier.count + 1)
                for (position, column) in columns.enumerated() {
                    next[position + 1] = close[row][column] ? lengths[position] + 1 : max(lengths[position + 1], next[position])
                }
                lengths = next
            }
            best = max(best, lengths[earlier.count])
        }
        return best
    }

    /// Frames of one capture that come back after the head moved; nil when none do enough.
    /// `reversed` tells a clip played back (frames return in reverse order) from a loop.
    public func revisits(_ frames: [FrameFingerprint?]) -> (count: Int, reversed: Bool)? {
        let count = frames.count
        guard count >= 5 else { return nil }
        func distance(_ a: Int, _ b: Int) -> Double {
            guard let x = frames[a], let y = frames[b] else { return .infinity }
            return x.distance(to: y)
        }
        // How far each frame is from its nearest neighbour in time.
        let motion = (0..<count).map { index in
            min(index > 0 ? distance(index, index - 1) : .infinity, index + 1 < count ? distance(index, index + 1) : .infinity)
        }
        var byAntiDiagonal: [Int: Int] = [:], byDiagonal: [Int: Int] = [:]
        for i in 0..<count {
            for j in (i + 2)..<max(i + 2, count) {
                let d = distance(i, j)
                guard d < revisitDistance, motion[i].isFinite, motion[j].isFinite,
                      min(motion[i], motion[j]) >= revisitMotion, d <= revisitRatio * min(motion[i], motion[j]) else { continue }
                byAntiDiagonal[i + j, default: 0] += 1
                byDiagonal[j - i, default: 0] += 1
            }
        }
        // A pair next to a line's centre counts for the line of either parity.
        let reversed = (byAntiDiagonal.keys.map { byAntiDiagonal[$0, default: 0] + byAntiDiagonal[$0 + 1, default: 0] }.max() ?? 0)
        let looped = byDiagonal.values.max() ?? 0
        guard max(reversed, looped) >= revisitsToRefuse else { return nil }
        return (max(reversed, looped), reversed >= looped)
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}
