import CustosEval
import CustosCore
import CustosFace
import Foundation

/// `custos face bench IMAGE...`: per-stage and whole-pipeline times (median, p95) on one
/// thread after warm-up, then whole-pipeline throughput on 1 and N threads; one JSON object
/// per line (read by bench/face.sh).
enum FaceBenchCommand {
    static let command = Command(
        spec: CommandSpec(path: "face bench",
                          summary: "Time the face pipeline per stage (JSON lines); used by bench/face.sh.",
                          options: FaceCommandSupport.analysisOptions + [runs.spec, warmup.spec, threads.spec, rounds.spec, repeats.spec, label.spec],
                          positionals: ["image..."])
    ) { arguments in
        try run(arguments)
    }

    static let runs = Option<Int>.integer("runs", in: 1...10_000, default: 10, help: "measured runs per image")
    static let warmup = Option<Int>.integer("warmup", in: 0...1000, default: 2, help: "unmeasured runs first")
    static let threads = Option<Int?>.integer("threads", in: 0...256, help: "threads for the throughput run (default: all cores; 0 skips it)")
    static let rounds = Option<Int>.integer("rounds", in: 1...1000, default: 3, help: "passes over the images per thread in the throughput run")
    static let repeats = Option<Int>.integer("repeat", in: 1...100, default: 3, help: "throughput runs per thread count; the best is reported")
    static let label = Option<String?>.text("label", "TEXT", help: "label copied into every line (default: the preset)")

    struct Stage: Encodable {
        let median: Double
        let p95: Double
        init(_ summary: FaceBenchmark.Summary) {
            median = summary.median
            p95 = summary.p95
        }
    }

    struct ImageLine: Encodable {
        let kind = "image"
        let label: String
        let file: String
        let width: Int
        let height: Int
        let faces: Int
        /// Wall clock.
        let stages: [String: Stage]
        /// The measuring thread's CPU time.
        let cpuStages: [String: Stage]
        enum CodingKeys: String, CodingKey { case kind, label, file, width, height, faces, stages, cpuStages = "cpu_stages" }
    }

    struct ThroughputLine: Encodable {
        let kind = "throughput"
        let label: String
        let threads: Int
        let imagesPerSecond: Double
        enum CodingKeys: String, CodingKey { case kind, label, threads, imagesPerSecond = "images_per_second" }
    }

    private static func run(_ arguments: ParsedArguments) throws -> ExitCode {
        guard !arguments.positionals.isEmpty else { throw UsageError("missing argument IMAGE") }
        let options = try FaceCommandSupport.faceOptions(arguments, descriptor: true)
        let (runs, warmup, rounds, repeats) = (arguments[runs], arguments[warmup], arguments[rounds], arguments[repeats])
        let threads = arguments[threads] ?? ProcessInfo.processInfo.activeProcessorCount
        let label = arguments[label] ?? (arguments[FaceCommandSupport.preset] ?? "selfie")
        let engine = try FaceCommandSupport.engine(arguments, poolSize: max(1, threads), options: options)
        let benchmark = FaceBenchmark(engine: engine, options: options, runs: runs, warmup: warmup)

        var images: [Data] = []
        for path in arguments.positionals {
            let data = try EvalFiles.read(path)
            images.append(data)
            let result = try benchmark.measure(name: path, data: data)
            func stages(_ r: FaceBenchmark.ImageResult) -> [String: Stage] {
                ["decode": r.decode, "detect": r.detect, "landmarks": r.landmarks, "chip": r.chip, "descriptor": r.descriptor,
                 "pipeline": r.pipeline].mapValues(Stage.init)
            }
            Console.out(try FaceCommandSupport.json(ImageLine(label: label, file: path, width: result.wall.width,
                                                              height: result.wall.height, faces: result.wall.faces,
                                                              stages: stages(result.wall), cpuStages: stages(result.cpu))))
        }
        if threads > 0 {
            // Alternate the thread counts and keep each one's best run: a moment of other work
            // on the machine then spoils one run, not the figure.
            var best: [Int: Double] = [:]
            for _ in 0..<repeats {
                for count in Set([1, threads]).sorted() {
                    let rate = try benchmark.throughput(images: images, threads: count, rounds: rounds)
                    best[count] = max(best[count] ?? 0, rate)
                }
            }
            for (count, rate) in best.sorted(by: { $0.key < $1.key }) {
                Console.out(try FaceCommandSupport.json(ThroughputLine(label: label, threads: count, imagesPerSecond: rate)))
            }
        }
        return .ok
    }
}
