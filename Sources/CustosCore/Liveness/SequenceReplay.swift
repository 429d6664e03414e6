import Foundation

/// Replays that survive re-encoding, judged on frame fingerprints (`FrameFingerprint`).
///
/// A single frame cannot tell a replay from a new capture of a person holding still: both
/// show the same picture. A sequence can. A replayed take (bytes appended, re-encoded,
/// resized, mirrored, played backwards or at half the rate) lines up with the earlier take
/// frame by frame, along one straight line through their distance matrix, at codec-noise
/// distances; a new take of the same person lines up with no earlier one, because its
/// motion is new. Within one capture, a frame that comes back (a clip played forward then
/// backward to fake two turns, or looped) is closer to an earlier, non-neighbouring frame
/// than to its own neighbours although the head moved in between.
public struct SequenceReplay: Sendable, Hashable, Codable {
    /// A take lines up with an earlier one when the median distance along the best line is
    /// below this. On the liveness data (`bench/liveness.sh`) replayed takes line up at 0.0013
    /// or less (bytes appended, re-encoded, mirrored, reversed) and 0.0065 or less (resized to
    /// 80%); a new take of a person holding still lines up with an earlier one at 0.0117 at
    /// the closest.
    public var alignedDistance = 0.008
    /// How much of the new take the line must cover (at least 3 frames).
    public var minimumOverlap = 0.5
    /// A frame "comes back" when it is this close to an earlier, non-neighbouring frame…
    public var revisitDistance = 0.008
    /// …at most this fraction of its distance to its neighbours…
    public var revisitRatio = 0.5
    /// …and its neighbours moved at least this much (a turning head, not a still one).
    public var revisitMotion = 0.015
    /// Frames that come back on one line before the capture is refused.
    public var revisitsToRefuse = 2

    public init() {}

    /// Steps of the lines tried: the same rate, half and a third of it, forwards and backwards.
    static let steps = [1, 2, 3, -1, -2, -3]

    /// Whether `take` replays `earlier` (or its mirror image).
    public func replays(_ take: [FrameFingerprint?], earlier: [FrameFingerprint?]) -> Bool {
        // A line's median distance is never below the closest pair of frames: when no frame of
        // the take comes that close to an earlier frame or its mirror image (a new take, almost
        // always), no line can, and the lines need not be walked.
        guard Self.closestPair(take, earlier) < alignedDistance else { return false }
        return (alignment(take, earlier: earlier) ?? .infinity) < alignedDistance
    }

    /// The smallest distance between a frame of `take` and a frame of `earlier` or its mirror image.
    static func closestPair(_ take: [FrameFingerprint?], _ earlier: [FrameFingerprint?]) -> Double {
        var closest = Double.infinity
        for case let frame? in take {
            for case let old? in earlier {
                closest = min(closest, frame.distance(to: old), frame.distanceToMirror(of: old))
            }
        }
        return closest
    }

    /// The smallest median distance along a line through the distance matrix of `take` and
    /// `earlier` (or its mirror image) that covers enough of the take; nil when none does.
    public func alignment(_ take: [FrameFingerprint?], earlier: [FrameFingerprint?]) -> Double? {
        guard !take.isEmpty, !earlier.isEmpty else { return nil }
        let needed = max(3, Int((minimumOverlap * Double(take.count)).rounded(.up)))
        guard take.count >= needed else { return nil }
        var best: Double?
        for olds in [earlier, earlier.map { $0?.mirrored }] {
            let matrix = take.map { frame in
                olds.map { old -> Double in
                    guard let frame, let old else { return .infinity }
                    return frame.distance(to: old)
                }
            }
            for step in Self.steps {
                // Each maximal segment of a line with this step, walked from where it enters the matrix.
                for row in take.indices {
                    for column in earlier.indices {
                        let previous = column - step
                        guard row == 0 || previous < 0 || previous >= earlier.count else { continue }
                        var distances: [Double] = []
                        var (k, index) = (row, column)
                        while k < take.count, index >= 0, index < earlier.count {
                            if matrix[k][index].isFinite { distances.append(matrix[k][index]) }
                            k += 1
                            index += step
                        }
                        if distances.count >= needed { best = min(best ?? .infinity, Self.median(distances)) }
                    }
                }
            }
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
