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
                          options: [pairs.spec, root.spec, roc.spec, csv.spec, FaceCommandSupport.threads.spec]
                              + FaceCommandSupport.datasetOptions)
    ) { arguments in
        try run(arguments)
    }

    static let pairs = Option<String?>.text("pairs", "FILE", help: "LFW pairs.txt (header 'FOLDS N') or TSV img1<TAB>img2<TAB>same").required()
    static let root = Option<String>.text("root", "DIR", default: ".", help: "image root (LFW: DIR/Name/Name_000i.jpg)")
    static let roc = Option<String?>.text("roc", "FILE.svg", help: "write the ROC curve (log FAR axis) as SVG")
    static let csv = Option<String?>.text("csv", "FILE", help: "write the ROC points (threshold, far, tar) as CSV")

    private static func run(_ arguments: ParsedArguments) throws -> ExitCode {
        let pairsPath = try arguments[pairs]
        let parsed = try PairsFile.read(pairsPath, root: arguments[root])
        // Default preset "thorough": dataset photos have smaller faces than selfies.
        var options = try FaceCommandSupport.faceOptions(arguments, descriptor: true, defaultPreset: "thorough")
        options.landmarks = .five
        let threads = arguments[FaceCommandSupport.threads] ?? ProcessInfo.processInfo.activeProcessorCount
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
        if let svgPath = arguments[roc] {
            try ROCChart.svg(metrics.roc, title: title, impostors: metrics.impostorCount).write(toFile: svgPath, atomically: true, encoding: .utf8)
        }
        if let csvPath = arguments[csv] {
            try ROCChart.csv(metrics.roc).write(toFile: csvPath, atomically: true, encoding: .utf8)
        }
        return metrics.pairs.isEmpty ? .failure : .ok
    }
}
