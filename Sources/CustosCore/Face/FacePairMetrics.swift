import Foundation

/// Verification metrics over scored pairs (distance: lower means more alike; a pair is
/// accepted as "same" when its distance is at or below the threshold).
public struct FacePairMetrics: Sendable {
    /// One scored pair.
    public struct Pair: Sendable, Hashable {
        public var distance: Double
        public var same: Bool
        /// Cross-validation fold (LFW: 0-9), nil when the file has none.
        public var fold: Int?

        public init(distance: Double, same: Bool, fold: Int? = nil) {
            self.distance = distance
            self.same = same
            self.fold = fold
        }
    }

    /// A point of the ROC curve.
    public struct Point: Sendable, Hashable {
        public var threshold: Double
        /// False accept rate: impostor pairs at or below the threshold.
        public var far: Double
        /// True accept rate: genuine pairs at or below the threshold.
        public var tar: Double
    }

    /// The operating point at a false accept rate target.
    public struct OperatingPoint: Sendable, Hashable {
        public var targetFAR: Double
        public var threshold: Double
        public var far: Double
        public var tar: Double
    }

    public let pairs: [Pair]
    public let genuineCount: Int
    public let impostorCount: Int
    /// The ROC curve: one point per distinct distance, thresholds ascending (FAR and TAR
    /// grow from 0 to 1); empty without both genuine and impostor pairs. Computed once.
    public let roc: [Point]

    public init(pairs: [Pair]) {
        self.pairs = pairs
        genuineCount = pairs.filter(\.same).count
        impostorCount = pairs.count - genuineCount
        roc = Self.curve(pairs, genuineCount: genuineCount, impostorCount: impostorCount)
    }

    private static func curve(_ pairs: [Pair], genuineCount: Int, impostorCount: Int) -> [Point] {
        guard genuineCount > 0, impostorCount > 0 else { return [] }
        let sorted = pairs.sorted { $0.distance < $1.distance }
        var points = [Point(threshold: sorted[0].distance.nextDown, far: 0, tar: 0)]
        var genuine = 0, impostor = 0, index = 0
        while index < sorted.count {
            let threshold = sorted[index].distance
            while index < sorted.count && sorted[index].distance == threshold {
                if sorted[index].same { genuine += 1 } else { impostor += 1 }
                index += 1
            }
            points.append(Point(threshold: threshold, far: Double(impostor) / Double(impostorCount),
                                tar: Double(genuine) / Double(genuineCount)))
        }
        return points
    }

    /// The highest TAR whose FAR is at most `targetFAR`, with its threshold.
    public func operatingPoint(atFAR targetFAR: Double) -> OperatingPoint? {
        guard let best = roc.last(where: { $0.far <= targetFAR }) else { return nil }
        return OperatingPoint(targetFAR: targetFAR, threshold: best.threshold, far: best.far, tar: best.tar)
    }

    /// Equal error rate (FAR = 1 - TAR) and its threshold, from the ROC point closest to it.
    public var equalErrorRate: (rate: Double, threshold: Double)? {
        guard let best = roc.min(by: { abs($0.far - (1 - $0.tar)) < abs($1.far - (1 - $1.tar)) }) else { return nil }
        return ((best.far + (1 - best.tar)) / 2, best.threshold)
    }

    /// Fraction of pairs decided correctly at a threshold.
    public static func accuracy(_ pairs: [Pair], threshold: Double) -> Double {
        guard !pairs.isEmpty else { return 0 }
        return Double(pairs.filter { ($0.distance <= threshold) == $0.same }.count) / Double(pairs.count)
    }

    /// The threshold with the best accuracy on `pairs` (midpoints between sorted distances).
    public static func bestThreshold(_ pairs: [Pair]) -> Double {
        let distances = pairs.map(\.distance).sorted()
        guard let first = distances.first, let last = distances.last else { return 0 }
        var candidates = [first.nextDown, last]
        for index in 1..<distances.count { candidates.append((distances[index - 1] + distances[index]) / 2) }
        var best = candidates[0], bestAccuracy = -1.0
        // Sweep in one pass: sort pairs, count correct decisions as the threshold moves up.
        let sorted = pairs.sorted { $0.distance < $1.distance }
        var correct = pairs.filter { !$0.same }.count   // threshold below everything: all "different"
        var index = 0
        for candidate in candidates.sorted() {
            while index < sorted.count && sorted[index].distance <= candidate {
                correct += sorted[index].same ? 1 : -1
                index += 1
            }
            let accuracy = Double(correct) / Double(pairs.count)
            if accuracy > bestAccuracy {
                bestAccuracy = accuracy
                best = candidate
            }
        }
        return best
    }

    /// K-fold cross-validated accuracy: for each fold, the threshold is chosen on the other
    /// folds and applied to it. Mean and (population) standard deviation over folds; nil when
    /// pairs carry no folds.
    public var crossValidatedAccuracy: (mean: Double, std: Double, folds: Int)? {
        let folds = Set(pairs.compactMap(\.fold)).sorted()
        guard folds.count >= 2 else { return nil }
        var accuracies: [Double] = []
        for fold in folds {
            let test = pairs.filter { $0.fold == fold }
            let train = pairs.filter { $0.fold != fold }
            accuracies.append(Self.accuracy(test, threshold: Self.bestThreshold(train)))
        }
        let mean = accuracies.reduce(0, +) / Double(accuracies.count)
        let variance = accuracies.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(accuracies.count)
        return (mean, variance.squareRoot(), folds.count)
    }
}
