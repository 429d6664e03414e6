import CustosEval
import CustosCore
import CustosFace
import Foundation

/// `custos eval liveness --data DIR`: BPCER on windows of genuine frame sequences and APCER
/// per presentation-attack type (replayed and re-encoded frames, photos moved and tilted,
/// printed-photo and screen-replay samples), judged by `ChallengeLivenessDetector`.
enum EvalLivenessCommand {
    static let command = Command(
        spec: CommandSpec(path: "eval liveness",
                          summary: "Evaluate liveness detection: BPCER on genuine sequences, APCER per presentation-attack type.",
                          options: [
                              .value("data", "DIR", "the liveness data (MANIFEST.tsv, frames/<name>/, live/, spoof/)"),
                              .value("actions", "LIST", "challenge actions, comma-separated (default: blink,turn_left,turn_right)"),
                              .value("window", "N", "frames per genuine window and per attack sequence (default 16)"),
                              .value("stride", "N", "frames between window starts (default: half the window)"),
                              .value("limit", "N", "at most N windows per sequence (default: all)"),
                              .value("attack-sources", "N", "genuine frames per sequence that attacks are made from (default 3)"),
                              .value("threads", "N", "parallel analysis workers (default: all cores)"),
                              .value("models-dir", "DIR", "dlib model files [CUSTOS_MODELS_DIR]; default: face_recognition_models in .custos/venv"),
                              .flag("json", "print one JSON object instead of text"),
                          ])
    ) { arguments in
        try run(arguments)
    }

    private static func run(_ arguments: ParsedArguments) throws -> ExitCode {
        guard let directory = arguments.value("data") else { throw UsageError("--data DIR is required") }
        let settings = try self.settings(arguments)
        let threads = try arguments.integer("threads", in: 1...256) ?? ProcessInfo.processInfo.activeProcessorCount
        let data = try LivenessDataSet(directory: directory)
        // The server's analysis of liveness frames.
        let options = IDVPolicy().frameOptions
        // With the CNN detector: the server gives frames where HOG finds no face a second look.
        let engine = try FaceCommandSupport.engine(arguments, poolSize: threads, options: options, loadCNN: true)
        guard engine.has68PointLandmarks else {
            throw FaceError(.modelUnavailable, "liveness needs the 68-point landmark model (\(FaceModelFiles.shapePredictor68Name))")
        }
        let started = Date()
        let analysis = LivenessFrameAnalysis(engine: engine, options: options, threads: threads,
                                             cnnFallbackFrames: IDVPolicy().cnnFallbackFrames)
        let evaluation = try LivenessEvaluation(data: data, analysis: analysis, detector: ChallengeLivenessDetector(policy: settings.policy),
                                                settings: settings, threads: threads)
        let report = LivenessReport(evaluation, settings: settings, analysis: analysis, seconds: Date().timeIntervalSince(started))
        if arguments.has("json") {
            Console.out(try FaceCommandSupport.json(report))
        } else {
            report.lines.forEach(Console.out)
        }
        return evaluation.genuine.isEmpty && evaluation.attacks.isEmpty ? .failure : .ok
    }

    private static func settings(_ arguments: ParsedArguments) throws -> LivenessEvaluation.Settings {
        var settings = LivenessEvaluation.Settings()
        if let list = arguments.value("actions") {
            settings.actions = try list.split(separator: ",").map { name in
                let trimmed = name.trimmingCharacters(in: .whitespaces)
                guard let action = LivenessAction(rawValue: trimmed) else {
                    throw UsageError("unknown action '\(trimmed)' (\(LivenessAction.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                return action
            }
            guard !settings.actions.isEmpty else { throw UsageError("--actions needs at least one action") }
        }
        let policy = settings.policy
        if let window = try arguments.integer("window", in: policy.minimumFrames...policy.maximumFrames) {
            settings.window = window
        }
        settings.stride = try arguments.integer("stride", in: 1...10_000) ?? max(1, settings.window / 2)
        settings.limit = try arguments.integer("limit", in: 1...10_000)
        settings.attackSources = try arguments.integer("attack-sources", in: 0...100) ?? settings.attackSources
        return settings
    }
}
