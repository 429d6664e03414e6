import CustosEval
import CustosCore
import CustosFace
import Foundation

/// `custos eval calibrate`: the distance threshold that keeps the false-match rate at or
/// below a target on labelled pairs (a pairs list, or every pair of a folder of identities),
/// with the false-non-match rate it costs and the counts behind both.
enum EvalCalibrateCommand {
    static let command = Command(
        spec: CommandSpec(path: "eval calibrate",
                          summary: "Find the match threshold for a target false-match rate on labelled pairs (FMR, FNMR, counts).",
                          options: [pairs.spec, root.spec, identities.spec, targetFMR.spec, FaceCommandSupport.threads.spec,
                                    FaceCommandSupport.json.spec] + FaceCommandSupport.datasetOptions)
    ) { arguments in
        try run(arguments)
    }

    static let pairs = Option<String?>.text("pairs", "FILE", help: "LFW pairs.txt or TSV img1<TAB>img2<TAB>same (as eval pairs)")
    static let root = Option<String>.text("root", "DIR", default: ".", help: "image root for --pairs")
    static let identities = Option<String?>.text("identities", "DIR", help: "instead of --pairs: every pair of DIR/<Name>/<images>")
    static let targetFMR = Option<Double?>.number("target-fmr", "RATE", expected: "a rate between 0 and 1 (exclusive)",
                                                  help: "highest acceptable false-match rate (default 1e-3)") { $0 > 0 && $0 < 1 }

    private static func run(_ arguments: ParsedArguments) throws -> ExitCode {
        let target = arguments[targetFMR] ?? 1e-3
        let (pairs, source) = try pairList(arguments)
        var options = try FaceCommandSupport.faceOptions(arguments, descriptor: true, defaultPreset: "thorough")
        options.landmarks = .five
        let threads = arguments[FaceCommandSupport.threads] ?? ProcessInfo.processInfo.activeProcessorCount
        let engine = try FaceCommandSupport.engine(arguments, poolSize: threads, options: options)
        let scored = ScoredPairs(pairs, engine: engine, options: options, threads: threads)
        guard let calibration = Calibration(scored.metrics, targetFMR: target) else {
            Console.error("custos eval calibrate: need at least one same and one different pair with both images described "
                          + "(\(scored.metrics.genuineCount) same, \(scored.metrics.impostorCount) different)")
            return .failure
        }
        if arguments[FaceCommandSupport.json] {
            Console.out(try FaceCommandSupport.json(Report(calibration: calibration, scored: scored, source: source)))
        } else {
            for line in text(calibration, scored: scored, source: source, threads: threads) { Console.out(line) }
        }
        return .ok
    }

    private static func pairList(_ arguments: ParsedArguments) throws -> (pairs: [ImagePair], source: String) {
        switch (arguments[pairs], arguments[identities]) {
        case (let file?, nil):
            return (try PairsFile.read(file, root: arguments[root]).pairs, file)
        case (nil, let directory?):
            return (try PairsFile.identities(root: directory).pairs, directory)
        default:
            throw UsageError("give either --pairs FILE or --identities DIR")
        }
    }

    private static func text(_ calibration: Calibration, scored: ScoredPairs, source: String, threads: Int) -> [String] {
        let metrics = scored.metrics
        var lines = ["pairs: \(metrics.pairs.count) (\(metrics.genuineCount) same, \(metrics.impostorCount) different) from \(source)"
                     + (scored.skipped > 0 ? ", \(scored.skipped) skipped (image not described)" : "")]
        lines.append(String(format: "images: %d in %.1f s on %d threads; detection fallbacks (centre region): %d",
                            scored.imageCount, scored.seconds, threads, scored.fallbacks))
        for (path, error) in scored.failures.sorted(by: { $0.key < $1.key }).prefix(5) { lines.append("  error: \(path): \(error)") }
        lines.append(String(format: "target FMR: %.0e", calibration.targetFMR))
        lines.append(String(format: "threshold: %.4f (same person at or below)", calibration.threshold))
        lines.append(String(format: "FMR: %.6f (%d of %d different pairs at or below the threshold)",
                            calibration.fmr, calibration.falseMatches, metrics.impostorCount))
        lines.append(String(format: "FNMR: %.6f (%d of %d same pairs above the threshold)",
                            calibration.fnmr, calibration.falseNonMatches, metrics.genuineCount))
        if let next = calibration.nextImpostorDistance {
            lines.append(String(format: "same rates for any threshold from %.4f up to (not including) %.4f, the next different pair",
                                calibration.threshold, next))
        }
        if calibration.falseMatches > 0, let strict = Calibration(metrics, targetFMR: 0) {
            lines.append(String(format: "with no false match on these pairs: threshold %.4f, FNMR %.6f (%d of %d)",
                                strict.threshold, strict.fnmr, strict.falseNonMatches, metrics.genuineCount))
        }
        if !calibration.enoughImpostors {
            lines.append(String(format: "caveat: %d different pairs are too few to support FMR %.0e: even with no false match, n pairs "
                                + "bound the true FMR (95%%, rule of three) only at 3/n = %.1e; at least %d are needed",
                                metrics.impostorCount, calibration.targetFMR, 3 / Double(metrics.impostorCount),
                                calibration.impostorPairsNeeded ?? 0))
        }
        return lines
    }

    /// The `--json` document: the pairs behind the figures, the calibration at the target and,
    /// when that admits false matches, the calibration that admits none.
    struct Report: Encodable {
        let source: String
        let samePairs: Int
        let differentPairs: Int
        let skippedPairs: Int
        let images: Int
        let fallbacks: Int
        let calibration: Calibration
        let noFalseMatch: Calibration?

        init(calibration: Calibration, scored: ScoredPairs, source: String) {
            self.source = source
            samePairs = scored.metrics.genuineCount
            differentPairs = scored.metrics.impostorCount
            skippedPairs = scored.skipped
            images = scored.imageCount
            fallbacks = scored.fallbacks
            self.calibration = calibration
            noFalseMatch = calibration.falseMatches > 0 ? Calibration(scored.metrics, targetFMR: 0) : nil
        }

        enum CodingKeys: String, CodingKey {
            case source, images, fallbacks, calibration
            case samePairs = "same_pairs", differentPairs = "different_pairs", skippedPairs = "skipped_pairs", noFalseMatch = "no_false_match"
        }
    }
}
