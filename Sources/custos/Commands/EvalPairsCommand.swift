import CustosEval
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
        let parsed = try PairsFile.read(pairsPath, root: arguments.value("root") ?? ".")
        // Default preset "thorough": dataset photos have smaller faces than selfies.
        var options = try FaceCommandSupport.faceOptions(arguments, descriptor: true, defaultPreset: "thorough")
        options.landmarks = .five
        let threads = try arguments.integer("threads", in: 1...256) ?? ProcessInfo.processInfo.activeProcessorCount
        let engine = try FaceCommandSupport.engine(arguments, poolSize: threads, options: options)
        let scored = ScoredPairs(parsed.pairs, engine: engine, options: options, threads: threads)
        let metrics = scored.metrics

        Console.out("pairs: \(metrics.pairs.count) (\(metrics.genuineCount) same, \(metrics.impostorCount) different)"
                    + (scored.skipped > 0 ? ", \(scored.skipped) skipped (unreadable image)" : ""))
        Console.out("images: \(scored.imageCount) in \(String(format: "%.1f", scored.seconds)) s on \(threads) threads; detection fallbacks (centre region): \(scored.fallbacks)")
        for (path, error) in scored.failures.sorted(by: { $0.key < $1.key }).prefix(5) { Console.out("  error: \(path): \(error)") }
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
        let title = "ROC: \(URL(fileURLWithPath: pairsPath).lastPathComponent) (\(metrics.pairs.count) pairs)"
        if let svgPath = arguments.value("roc") {
            try ROCChart.svg(metrics.roc, title: title, impostors: metrics.impostorCount).write(toFile: svgPath, atomically: true, encoding: .utf8)
        }
        if let csvPath = arguments.value("csv") {
            try ROCChart.csv(metrics.roc).write(toFile: csvPath, atomically: true, encoding: .utf8)
        }
        return metrics.pairs.isEmpty ? .failure : .ok
    }
}
