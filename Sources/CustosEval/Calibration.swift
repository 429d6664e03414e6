import CustosCore
import Foundation

/// The operating point `custos eval calibrate` reports: the highest threshold whose
/// false-match rate on the pairs is at most the target (`FacePairMetrics.operatingPoint`),
/// with the error counts behind both rates.
public struct Calibration: Encodable {
    public let targetFMR: Double
    /// Same person at or below this distance.
    public let threshold: Double
    /// Different pairs at or below the threshold.
    public let falseMatches: Int
    /// Same pairs above the threshold.
    public let falseNonMatches: Int
    public let fmr: Double
    public let fnmr: Double
    /// The smallest different-pair distance above the threshold: every threshold below it
    /// gives the same rates on these pairs (nil when no different pair lies above).
    public let nextImpostorDistance: Double?
    /// Different pairs needed before a rate as low as the target can be observed with 95%
    /// confidence (rule of three: zero errors in n trials bound the rate at 3/n); nil for a
    /// target of 0, which no number of pairs supports.
    public let impostorPairsNeeded: Int?
    public let enoughImpostors: Bool

    /// nil without at least one same and one different pair.
    public init?(_ metrics: FacePairMetrics, targetFMR: Double) {
        guard metrics.genuineCount > 0, metrics.impostorCount > 0, let point = metrics.operatingPoint(atFAR: targetFMR) else {
            return nil
        }
        self.targetFMR = targetFMR
        threshold = point.threshold
        falseMatches = metrics.pairs.filter { !$0.same && $0.distance <= point.threshold }.count
        falseNonMatches = metrics.pairs.filter { $0.same && $0.distance > point.threshold }.count
        fmr = Double(falseMatches) / Double(metrics.impostorCount)
        fnmr = Double(falseNonMatches) / Double(metrics.genuineCount)
        nextImpostorDistance = metrics.pairs.filter { !$0.same && $0.distance > point.threshold }.map(\.distance).min()
        // Rounded to a millionth first, so that 3 / 1e-3 is 3000 and not 3001.
        let needed = targetFMR > 0 ? Int(min(1e12, (((3 / targetFMR) * 1e6).rounded() / 1e6).rounded(.up))) : nil
        impostorPairsNeeded = needed
        enoughImpostors = needed.map { metrics.impostorCount >= $0 } ?? false
    }

    public enum CodingKeys: String, CodingKey {
        case threshold, fmr, fnmr
        case targetFMR = "target_fmr", falseMatches = "false_matches", falseNonMatches = "false_non_matches"
        case nextImpostorDistance = "next_impostor_distance", impostorPairsNeeded = "impostor_pairs_needed"
        case enoughImpostors = "enough_impostors"
    }
}
