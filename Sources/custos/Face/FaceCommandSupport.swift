import CustosEval
import CustosCore
import CustosFace
import Foundation

/// Options and helpers shared by `custos face …` and `custos eval pairs`.
enum FaceCommandSupport {
    /// Options that choose how faces are analyzed.
    static let analysisOptions: [OptionSpec] = [
        .value("preset", "NAME", "selfie (default: HOG, no upsampling, detection on <= 480 px), peer (face_recognition's defaults), thorough (upsample 1, <= 2000 px)"),
        .value("detector", "hog|cnn", "face detector (cnn needs mmod_human_face_detector.dat)"),
        .value("upsample", "N", "times to double the image before detecting (0-4)"),
        .value("max-side", "PX", "detect on a copy at most PX on the longer side (0: full image)"),
        .value("landmarks", "5|68", "landmark set (68 needs the 68-point model; not for commercial use)"),
        .flag("flip", "average the descriptor with the mirrored face's"),
        .value("jitters", "N", "average the descriptor over N jittered copies"),
        .value("models-dir", "DIR", "dlib model files [CUSTOS_MODELS_DIR]; default: face_recognition_models in .custos/venv"),
        .value("max-image-bytes", "N", "refuse larger inputs (default 20 MiB)"),
        .value("max-image-pixels", "N", "refuse images whose header declares more pixels (default 24000000)"),
    ]

    /// The face options a command line asks for.
    static func faceOptions(_ arguments: ParsedArguments, descriptor: Bool, defaultPreset: String = "selfie") throws -> FaceOptions {
        var options: FaceOptions
        switch arguments.value("preset") ?? defaultPreset {
        case "selfie": options = .selfie
        case "peer": options = .peerDefaults
        case "thorough": options = .thorough
        case let other: throw UsageError("unknown --preset '\(other)' (selfie, peer, thorough)")
        }
        if let detector = arguments.value("detector") {
            guard let kind = FaceDetectorKind(rawValue: detector) else { throw UsageError("--detector must be hog or cnn") }
            options.detector = kind
        }
        if let upsample = try arguments.integer("upsample", in: 0...4) { options.upsample = upsample }
        if let side = try arguments.integer("max-side", in: 0...16384) { options.maxDetectionSide = side == 0 ? nil : side }
        switch arguments.value("landmarks") {
        case nil: break
        case "5": options.landmarks = .five
        case "68": options.landmarks = .sixtyEight
        case let other?: throw UsageError("--landmarks must be 5 or 68, got '\(other)'")
        }
        if arguments.has("flip") { options.flip = true }
        if let jitters = try arguments.integer("jitters", in: 0...100) { options.jitters = jitters }
        options.descriptor = descriptor
        do { try options.validate() } catch { throw UsageError(error.message) }
        return options
    }

    /// Builds the engine the command line describes.
    /// Loads the 68-point model only when the options use it, the CNN only when asked for.
    static func engine(_ arguments: ParsedArguments, poolSize: Int, options: FaceOptions, loadCNN: Bool = false) throws -> FaceEngine {
        var environment = ProcessInfo.processInfo.environment
        if let directory = arguments.value("models-dir") { environment["CUSTOS_MODELS_DIR"] = directory }
        var limits = ImageLimits.default
        if let bytes = try arguments.integer("max-image-bytes", in: 1...Int(Int32.max)) { limits.maxBytes = bytes }
        if let pixels = try arguments.integer("max-image-pixels", in: 1...1_000_000_000) { limits.maxPixels = pixels }
        let files = try FaceModelFiles.locate(environment: environment)
        return try FaceEngine(configuration: FaceEngineConfiguration(models: files, poolSize: poolSize,
                                                                     use68PointLandmarks: options.landmarks == .sixtyEight,
                                                                     useCNNDetector: loadCNN || options.detector == .cnn, imageLimits: limits))
    }

    /// Compact JSON with sorted keys, one document.
    static func json<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// The error body the server also uses: `{"code": …, "message": …}`.
    struct ErrorBody: Encodable {
        let code: String
        let message: String
        init(_ error: FaceError) {
            code = error.code.rawValue
            message = error.message
        }
    }
}
