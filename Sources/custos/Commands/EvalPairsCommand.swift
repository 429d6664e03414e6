import CustosCore
import CustosFace
import Foundation

/// `custos eval pairs --pairs FILE --root DIR`: verification accuracy over labelled pairs
/// (LFW pairs.txt or TSV): 10-fold accuracy (LFW), TAR at FAR 1e-1/1e-2/1e-3 with their
/// thresholds, EER; optional ROC as SVG and CSV.
enum EvalPairsCommand {
    static let command = Command(
        spec: CommandSpec(path: "eval pairs",
                          summary: "Evaluate face verification on labelled pairs (LFW pairs.txt or TSV): accuracy, TAR@FAR, EER, ROC.",
                          options: [
                              .value("pairs", "FILE", "LFW pairs.txt (header 'FOLDS N') or TSV img1<TAB>img2<TAB>same"),
                              .value("root", "DIR", "image root (LFW: DIR/Name/Name_000i.jpg)"),
                              .value("roc", "FILE.svg", "write the ROC curve (log FAR axis) as SVG"),
                              .value("csv", "FILE", "write the ROC points (threshold, far, tar) as CSV"),
                              .value("threads", "N", "parallel descriptor workers (default: all cores)"),
                          ] + FaceCommandSupport.analysisOptions.filter { $0.name != "landmarks" && $0.name != "preset" } + [
                              .value("preset", "NAME", "thorough (default here: upsample 1, <= 2000 px), selfie, peer"),
                          ])
    ) { arguments in
        try run(arguments)
    }

    private static func run(_ arguments: ParsedArguments) throws -> ExitCode {
        guard let pairsPath = arguments.value("pairs") else { throw UsageError("--pairs FILE is required") }
        let root = arguments.value("root") ?? "."
        let text: String
        do { text = try String(contentsOfFile: pairsPath, encoding: .utf8) } catch {
            throw UsageError("cannot read \(pairsPath)")
        }
        let parsed = try PairsFile.parse(text, root: root)
        // Default preset "thorough": dataset photos have smaller faces than selfies.
        var options = try FaceCommandSupport.faceOptions(arguments, descriptor: true, defaultPreset: "thorough")
        options.landmarks = .five
        let threads = try FaceCommandSupport.integer(arguments, "threads", range: 1...256) ?? ProcessInfo.processInfo.activeProcessorCount
        let engine = try FaceCommandSupport.engine(arguments, poolSize: threads, options: options)

        let paths = Array(Set(parsed.pairs.flatMap { [$0.first, $0.second] })).sorted()
        let start = Date()
        let outcomes = PairDescriptors(engine: engine, options: options).describe(paths: paths, threads: threads)
        var fallbacks = 0, failures: [String: FaceError] = [:]
        for (path, outcome) in outcomes {
            switch outcome {
            case .described(_, let fallback): if fallback { fallbacks += 1 }
            case .failed(let error): failures[path] = error
            }
        }
        var scored: [FacePairMetrics.Pair] = []
        for pair in parsed.pairs {
            guard case .described(let a, _)? = outcomes[pair.first], case .described(let b, _)? = outcomes[pair.second] else { continue }
            scored.append(FacePairMetrics.Pair(distance: a.distance(to: b), same: pair.same, fold: pair.fold))
        }
        let metrics = FacePairMetrics(pairs: scored)
        let seconds = Date().timeIntervalSince(start)

        Console.out("pairs: \(scored.count) (\(metrics.genuineCount) same, \(metrics.impostorCount) different)"
                    + (scored.count < parsed.pairs.count ? ", \(parsed.pairs.count - scored.count) skipped (unreadable image)" : ""))
        Console.out("images: \(paths.count) in \(String(format: "%.1f", seconds)) s on \(threads) threads; detection fallbacks (centre region): \(fallbacks)")
        for (path, error) in failures.sorted(by: { $0.key < $1.key }).prefix(5) { Console.out("  error: \(path): \(error)") }
        if parsed.isLFW, let cv = metrics.crossValidatedAccuracy {
            Console.out(String(format: "accuracy (%d-fold cross-validated): %.4f ± %.4f", cv.folds, cv.mean, cv.std))
        }
        for target in [1e-1, 1e-2, 1e-3] {
            let label = String(format: "TAR @ FAR=%.0e", target)
            if let point = metrics.operatingPoint(atFAR: target) {
                let resolution = metrics.impostorCount > 0 && Double(metrics.impostorCount) * target < 1 ? " (fewer impostor pairs than 1/FAR: FAR resolution 1/\(metrics.impostorCount))" : ""
                Console.out(String(format: "%@: %.4f at threshold %.4f (FAR %.4f)%@", label, point.tar, point.threshold, point.far, resolution))
            } else {
                Console.out("\(label): n/a")
            }
        }
        if let eer = metrics.equalErrorRate {
            Console.out(String(format: "EER: %.4f at threshold %.4f", eer.rate, eer.threshold))
        }
        let title = "ROC: \(URL(fileURLWithPath: pairsPath).lastPathComponent) (\(scored.count) pairs)"
        if let svgPath = arguments.value("roc") {
            try ROCChart.svg(metrics.roc, title: title, impostors: metrics.impostorCount).write(toFile: svgPath, atomically: true, encoding: .utf8)
        }
        if let csvPath = arguments.value("csv") {
            try ROCChart.csv(metrics.roc).write(toFile: csvPath, atomically: true, encoding: .utf8)
        }
        return scored.isEmpty ? .failure : .ok
    }
}
