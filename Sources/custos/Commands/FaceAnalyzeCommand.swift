import CustosEval
import CustosCore
import CustosFace
import Foundation

/// `custos face analyze IMAGE...`: faces, landmarks, quality and (optionally) descriptors as JSON.
enum FaceAnalyzeCommand {
    static let command = Command(
        spec: CommandSpec(path: "face analyze",
                          summary: "Detect faces in JPEG/PNG images; print boxes, landmarks, quality (and descriptors) as JSON.",
                          options: FaceCommandSupport.analysisOptions + [descriptor.spec, pretty.spec],
                          positionals: ["image..."])
    ) { arguments in
        try run(arguments)
    }

    static let descriptor = Flag("descriptor", help: "include the 128-d descriptor of each face")
    static let pretty = Flag("pretty", help: "indent the JSON")

    struct ImageResult: Encodable {
        let file: String
        var width: Int?
        var height: Int?
        var faces: [Face]?
        var error: FaceCommandSupport.ErrorBody?
    }

    struct Output: Encodable {
        let images: [ImageResult]
    }

    private static func run(_ arguments: ParsedArguments) throws -> ExitCode {
        guard !arguments.positionals.isEmpty else { throw UsageError("missing argument IMAGE") }
        let options = try FaceCommandSupport.faceOptions(arguments, descriptor: arguments[descriptor])
        let engine = try FaceCommandSupport.engine(arguments, poolSize: 1, options: options)
        var results: [ImageResult] = []
        var failed = false
        for path in arguments.positionals {
            var result = ImageResult(file: path)
            do {
                let image = try engine.decode(EvalFiles.read(path))
                result.width = image.width
                result.height = image.height
                result.faces = try engine.analyze(image, options: options)
            } catch {
                result.error = FaceCommandSupport.ErrorBody(error)
                failed = true
            }
            results.append(result)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = arguments[pretty] ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
                                                           : [.sortedKeys, .withoutEscapingSlashes]
        Console.out(String(decoding: try encoder.encode(Output(images: results)), as: UTF8.self))
        return failed ? .failure : .ok
    }
}
