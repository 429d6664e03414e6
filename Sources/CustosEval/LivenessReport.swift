import CustosCore
import Foundation

/// The error rates of `custos eval liveness` in ISO/IEC 30107-3 terms: BPCER (bona fide
/// presentations classified as attacks) over the genuine windows, APCER (attack
/// presentations classified as bona fide) per attack type, with counts and failure reasons.
public struct LivenessReport: Encodable {
    /// Counts of one group of presentations.
    public struct Tally: Encodable {
        var presentations = 0
        /// Genuine: rejected; attacks: accepted. The error count either way.
        var errors = 0
        /// Rejections by failure code.
        var failures: [String: Int] = [:]
        /// Presentations and errors per challenge action.
        var byAction: [String: [Int]] = [:]

        var rate: Double { presentations > 0 ? Double(errors) / Double(presentations) : 0 }

        mutating func add(_ judged: LivenessEvaluation.Judged, isError: Bool) {
            presentations += 1
            errors += isError ? 1 : 0
            if let failure = judged.verdict.failure { failures[failure.rawValue, default: 0] += 1 }
            var counts = byAction[judged.presentation.action.rawValue] ?? [0, 0]
            counts[0] += 1
            counts[1] += isError ? 1 : 0
            byAction[judged.presentation.action.rawValue] = counts
        }

        enum CodingKeys: String, CodingKey { case presentations, errors, rate, failures, byAction = "by_action" }

        public func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(presentations, forKey: .presentations)
            try container.encode(errors, forKey: .errors)
            try container.encode(rate, forKey: .rate)
            try container.encode(failures, forKey: .failures)
            try container.encode(byAction, forKey: .byAction)
        }
    }

    public let window: Int
    public let stride: Int
    public let actions: [String]
    public let framesAnalysed: Int
    public let analysisErrors: Int
    public let seconds: Double
    public let skipped: SkippedWindows
    /// BPCER over all genuine windows, and per sequence.
    public let bpcer: Tally
    public let bpcerBySequence: [String: Tally]
    /// Genuine windows compared with the earlier windows of their sequence, and how many were
    /// taken for a replay of one (a false replay: a BPCER of the take memory).
    public let takesCompared: Int
    public let takesRefusedAsReplays: Int
    /// APCER per attack type (reference types included, flagged in `referenceTypes`).
    public let apcer: [String: Tally]
    public let referenceTypes: [String]
    /// ISO/IEC 30107-3's summary: the worst APCER over the (non-reference) attack types.
    public let maximumAPCER: Double
    public let meetsAPCERTarget: Bool
    public let meetsBPCERTarget: Bool
    /// Every attack presentation the detector accepted: what to look at first.
    public let acceptedAttacks: [Accepted]

    /// One accepted attack presentation.
    public struct Accepted: Encodable {
        let type: String
        let source: String
        let action: String
        let detail: String
    }

    public static let bpcerTarget = 0.10

    public init(_ evaluation: LivenessEvaluation, settings: LivenessEvaluation.Settings, analysis: LivenessFrameAnalysis, seconds: Double) {
        window = settings.window
        stride = settings.stride
        actions = settings.actions.map(\.rawValue)
        framesAnalysed = analysis.count
        analysisErrors = analysis.errors
        self.seconds = seconds
        skipped = evaluation.skipped
        var all = Tally(), bySequence: [String: Tally] = [:]
        for judged in evaluation.genuine {
            all.add(judged, isError: !judged.verdict.passed)
            if case .genuine(let sequence) = judged.presentation.kind {
                bySequence[sequence, default: Tally()].add(judged, isError: !judged.verdict.passed)
            }
        }
        bpcer = all
        bpcerBySequence = bySequence
        takesCompared = evaluation.takesCompared
        takesRefusedAsReplays = evaluation.takesRefusedAsReplays
        var byType: [String: Tally] = [:]
        for judged in evaluation.attacks {
            if case .attack(let type) = judged.presentation.kind {
                byType[type.rawValue, default: Tally()].add(judged, isError: judged.verdict.passed)
            }
        }
        apcer = byType
        let references = LivenessAttackType.allCases.filter(\.isReference).map(\.rawValue).filter { byType[$0] != nil }
        referenceTypes = references
        maximumAPCER = byType.filter { !references.contains($0.key) }.map(\.value.rate).max() ?? 0
        meetsAPCERTarget = maximumAPCER == 0
        meetsBPCERTarget = all.presentations > 0 && all.rate <= Self.bpcerTarget
        acceptedAttacks = evaluation.attacks.filter(\.verdict.passed).compactMap { judged in
            guard case .attack(let type) = judged.presentation.kind else { return nil }
            return Accepted(type: type.rawValue, source: judged.presentation.source, action: judged.presentation.action.rawValue,
                            detail: judged.verdict.detail)
        }
    }

    public enum CodingKeys: String, CodingKey {
        case window, stride, actions, seconds, skipped, bpcer, apcer
        case framesAnalysed = "frames_analysed", analysisErrors = "analysis_errors", bpcerBySequence = "bpcer_by_sequence"
        case referenceTypes = "reference_types", maximumAPCER = "maximum_apcer", meetsAPCERTarget = "meets_apcer_target"
        case meetsBPCERTarget = "meets_bpcer_target", acceptedAttacks = "accepted_attacks"
        case takesCompared = "takes_compared", takesRefusedAsReplays = "takes_refused_as_replays"
    }

    // MARK: Text

    public var lines: [String] {
        var lines = ["windows of \(window) frames every \(stride); challenges: \(actions.joined(separator: ", "))"]
        lines.append(String(format: "frames analysed: %d in %.1f s%@", framesAnalysed, seconds,
                            analysisErrors > 0 ? " (\(analysisErrors) could not be decoded: no face)" : ""))
        lines.append("genuine windows: \(bpcer.presentations) judged; skipped: \(skipped.noAction) without an action, "
                     + "\(skipped.noFaceAtEnds) without a face at an end (turn direction unknown), "
                     + "\(skipped.actionNotSelected) with an action not asked for")
        lines.append("BPCER: " + Self.rate(bpcer, noun: "genuine windows rejected"))
        for (sequence, tally) in bpcerBySequence.sorted(by: { $0.key < $1.key }) {
            lines.append("  \(sequence): " + Self.rate(tally, noun: "rejected"))
        }
        lines.append("new takes refused as replays of an earlier take: \(takesRefusedAsReplays) of \(takesCompared) genuine windows "
                     + "(each against every earlier window of its sequence that shares no frame)")
        lines.append("APCER per attack type:")
        let width = apcer.keys.map(\.count).max() ?? 0
        for type in LivenessAttackType.allCases.map(\.rawValue) {
            guard let tally = apcer[type] else { continue }
            let name = type.padding(toLength: width, withPad: " ", startingAt: 0)
            lines.append("  \(name)  " + Self.rate(tally, noun: "accepted") + (referenceTypes.contains(type) ? " (reference: a genuine still, moved)" : ""))
        }
        for accepted in acceptedAttacks {
            let source = accepted.source.split(separator: "/").suffix(2).joined(separator: "/")
            lines.append("  accepted: \(accepted.type) from \(source) against \(accepted.action)")
        }
        // The replayed takes side by side with the genuine acceptance they must not cost.
        let replayTypes = LivenessAttackType.allCases.filter { $0.takeReplay != nil }.map(\.rawValue)
        let replays = replayTypes.compactMap { apcer[$0] }
        let refusedAsReplay = replays.reduce(0) { $0 + ($1.failures["replay"] ?? 0) }
        let replayCount = replays.reduce(0) { $0 + $1.presentations }
        let refusedAtAll = replays.reduce(0) { $0 + $1.presentations - $1.errors }
        lines.append(String(format: "replayed takes (%d variants): %d of %d refused, %d of them as replays; genuine windows accepted: %d of %d (%.1f%%)",
                            replays.count, refusedAtAll, replayCount, refusedAsReplay, bpcer.presentations - bpcer.errors,
                            bpcer.presentations, bpcer.presentations == 0 ? 0 : 100 * Double(bpcer.presentations - bpcer.errors) / Double(bpcer.presentations)))
        lines.append(String(format: "targets: APCER 0%% for repeated frames and warped photos: %@ (worst %.1f%%); BPCER <= %.0f%%: %@",
                            meetsAPCERTarget ? "met" : "NOT met", maximumAPCER * 100, Self.bpcerTarget * 100,
                            bpcer.presentations == 0 ? "not measured (no genuine window shows these actions)"
                                : meetsBPCERTarget ? "met" : "NOT met"))
        return lines
    }

    /// "12.5% (2 of 16 rejected): action_missing 2".
    private static func rate(_ tally: Tally, noun: String) -> String {
        let reasons = tally.failures.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        return String(format: "%.1f%% (%d of %d %@)", tally.rate * 100, tally.errors, tally.presentations, noun)
            + (reasons.isEmpty ? "" : "; failures: " + reasons)
    }
}
