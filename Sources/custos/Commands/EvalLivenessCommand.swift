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
                          options: [data.spec, actions.spec, window.spec, stride.spec, limit.spec, attackSources.spec,
                                    FaceCommandSupport.threads.spec, FaceCommandSupport.modelsDirectory.spec, FaceCommandSupport.json.spec])
    ) { arguments in
        try run(arguments)
    }

    static let data = Option<String?>.text("data", "DIR", help: "the liveness data (MANIFEST.tsv, frames/<name>/, live/, spoof/)").required()
    static let actions = Option<String?>.text("actions", "LIST", help: "challenge actions, comma-separated (default: blink,turn_left,turn_right)")
    static let window = Option<Int?>.integer("window", in: LivenessPolicy().minimumFrames...LivenessPolicy().maximumFrames,
                                             help: "frames per genuine window and per attack sequence (default 16)")
    static let stride = Option<Int?>.integer("stride", in: 1...10_000, help: "frames between window starts (default: half the window)")
    static let limit = Option<Int?>.integer("limit", in: 1...10_000, help: "at most N windows per sequence (default: all)")
    static let attackSources = Option<Int?>.integer("attack-sources", in: 0...100,
                                                    help: "genuine frames per sequence that attacks are made from (default 3)")

    private static func run(_ arguments: ParsedArguments) throws -> ExitCode {
        let directory = try arguments[data]
        let settings = try self.settings(arguments)
        let threads = arguments[FaceCommandSupport.threads] ?? ProcessInfo.processInfo.activeProcessorCount
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
        if arguments[FaceCommandSupport.json] {
            Console.out(try FaceCommandSupport.json(report))
        } else {
            report.lines.forEach(Console.out)
        }
        return evaluation.genuine.isEmpty && evaluation.attacks.isEmpty ? .failure : .ok
    }

    private static func settings(_ arguments: ParsedArguments) throws -> LivenessEvaluation.Settings {
        var settings = LivenessEvaluation.Settings()
        if let list = arguments[actions] {
            settings.actions = try list.split(separator: ",").map { name in
                let trimmed = name.trimmingCharacters(in: .whitespaces)
                guard let action = LivenessAction(rawValue: trimmed) else {
                    throw UsageError("unknown action '\(trimmed)' (\(LivenessAction.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                return action
            }
            guard !settings.actions.isEmpty else { throw UsageError("--actions needs at least one action") }
        }
        if let window = arguments[window] { settings.window = window }
        settings.stride = arguments[stride] ?? max(1, settings.window / 2)
        settings.limit = arguments[limit]
        settings.attackSources = arguments[attackSources] ?? settings.attackSources
        return settings
    }
}
