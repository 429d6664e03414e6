import CustosEval
import CustosCore
import CustosFace
import Foundation

/// `custos face compare A B`: the distance between the largest face of each image and the
/// decision at the threshold. Exit 0 same, 3 different, 1 error (including no face).
enum FaceCompareCommand {
    static let command = Command(
        spec: CommandSpec(path: "face compare",
                          summary: "Compare the largest face of two images: distance and decision (exit 0 same, 3 different, 1 error).",
                          options: FaceCommandSupport.analysisOptions + [threshold.spec],
                          positionals: ["a", "b"])
    ) { arguments in
        try run(arguments)
    }

    struct Output: Encodable {
        let distance: Double
        let threshold: Double
        let decision: FaceMatchDecision
        let a: FaceBox
        let b: FaceBox
    }

    static let threshold = Option<String?>.text("threshold", "T", help: "same person at or below this distance [CUSTOS_FACE_THRESHOLD] (default 0.6)")

    static func policy(_ arguments: ParsedArguments) throws -> FaceMatchPolicy {
        let text = arguments[threshold] ?? ProcessInfo.processInfo.environment["CUSTOS_FACE_THRESHOLD"]
        guard let text, !text.isEmpty else { return try FaceMatchPolicy() }
        guard let value = Double(text) else { throw UsageError("threshold must be a number, got '\(text)'") }
        do { return try FaceMatchPolicy(threshold: value) } catch { throw UsageError(error.message) }
    }

    private static func largestFace(_ path: String, engine: FaceEngine, options: FaceOptions) throws(FaceError) -> Face {
        let faces = try engine.analyze(EvalFiles.read(path), options: options)
        guard let face = faces.largest else {
            throw FaceError(.noFace, "no face found in \(path)")
        }
        return face
    }

    private static func faces(_ a: String, _ b: String, engine: FaceEngine,
                              options: FaceOptions) throws(FaceError) -> (a: Face, b: Face) {
        (try largestFace(a, engine: engine, options: options), try largestFace(b, engine: engine, options: options))
    }

    private static func run(_ arguments: ParsedArguments) throws -> ExitCode {
        let policy = try policy(arguments)
        var options = try FaceCommandSupport.faceOptions(arguments, descriptor: true)
        if arguments[FaceCommandSupport.landmarks] == nil { options.landmarks = .five }
        let engine = try FaceCommandSupport.engine(arguments, poolSize: 1, options: options)
        let pair: (a: Face, b: Face)
        do {
            pair = try faces(arguments.positionals[0], arguments.positionals[1], engine: engine, options: options)
        } catch {
            Console.out(try FaceCommandSupport.json(["error": FaceCommandSupport.ErrorBody(error)]))
            Console.error("custos face compare: \(error.message)")
            return .failure
        }
        guard let da = pair.a.descriptor, let db = pair.b.descriptor else { throw FaceError(.engineFailure, "no descriptor computed") }
        let distance = da.distance(to: db)
        let decision = policy.decide(distance: distance)
        Console.out(try FaceCommandSupport.json(Output(distance: distance, threshold: policy.threshold, decision: decision,
                                                       a: pair.a.box, b: pair.b.box)))
        return decision == .same ? .ok : .different
    }
}
