import CustosEval
import CustosCore
import CustosFace
import Foundation

/// Options and helpers shared by `custos face …` and `custos eval pairs`.
enum FaceCommandSupport {
    static let preset = Option<String?>.choice("preset", "NAME", ["selfie", "peer", "thorough"], help:
        "selfie (default: HOG, no upsampling, detection on <= 480 px), peer (face_recognition's defaults), thorough (upsample 1, <= 2000 px)")
    /// The preset of the commands that read data sets, whose faces are smaller than a selfie's.
    static let datasetPreset = Option<String?>.choice("preset", "NAME", ["selfie", "peer", "thorough"],
                                                      help: "thorough (default here: upsample 1, <= 2000 px), selfie, peer")
    static let detector = Option<String?>.choice("detector", "hog|cnn", ["hog", "cnn"], help: "face detector (cnn needs mmod_human_face_detector.dat)")
    static let upsample = Option<Int?>.integer("upsample", in: 0...4, help: "times to double the image before detecting (0-4)")
    static let maxSide = Option<Int?>.integer("max-side", "PX", in: 0...16384, help: "detect on a copy at most PX on the longer side (0: full image)")
    static let landmarks = Option<String?>.choice("landmarks", "5|68", ["5", "68"],
                                                  help: "landmark set (68 needs the 68-point model; not for commercial use)")
    static let flip = Flag("flip", help: "average the descriptor with the mirrored face's")
    static let jitters = Option<Int?>.integer("jitters", in: 0...100, help: "average the descriptor over N jittered copies")
    static let modelsDirectory = Option<String?>.text("models-dir", "DIR",
                                                      help: "dlib model files [CUSTOS_MODELS_DIR]; default: face_recognition_models in .custos/venv")
    static let maxImageBytes = Option<Int?>.integer("max-image-bytes", in: 1...Int(Int32.max), help: "refuse larger inputs (default 20 MiB)")
    static let maxImagePixels = Option<Int?>.integer("max-image-pixels", in: 1...1_000_000_000,
                                                     help: "refuse images whose header declares more pixels (default 24000000)")
    static let threads = Option<Int?>.integer("threads", in: 1...256, help: "parallel workers (default: all cores)")
    static let json = Flag("json", help: "print one JSON object instead of text")

    /// Options that choose how the engine is built (`engine`).
    static let engineOptions: [OptionSpec] = [modelsDirectory.spec, maxImageBytes.spec, maxImagePixels.spec]
    /// Options that choose how faces are analyzed, for commands that use the selfie preset by default.
    static let analysisOptions: [OptionSpec] = [preset.spec, detector.spec, upsample.spec, maxSide.spec, landmarks.spec, flip.spec, jitters.spec]
        + engineOptions
    /// The same for the commands that read data sets (five landmarks, thorough by default).
    static let datasetOptions: [OptionSpec] = [detector.spec, upsample.spec, maxSide.spec, flip.spec, jitters.spec] + engineOptions
        + [datasetPreset.spec]

    /// The face options a command line asks for.
    static func faceOptions(_ arguments: ParsedArguments, descriptor: Bool, defaultPreset: String = "selfie") throws -> FaceOptions {
        var options: FaceOptions
        switch arguments[preset] ?? defaultPreset {
        case "peer": options = .peerDefaults
        case "thorough": options = .thorough
        default: options = .selfie
        }
        if let detector = arguments[detector].flatMap(FaceDetectorKind.init(rawValue:)) { options.detector = detector }
        if let upsample = arguments[upsample] { options.upsample = upsample }
        if let side = arguments[maxSide] { options.maxDetectionSide = side == 0 ? nil : side }
        switch arguments[landmarks] {
        case "5": options.landmarks = .five
        case "68": options.landmarks = .sixtyEight
        default: break
        }
        if arguments[flip] { options.flip = true }
        if let jitters = arguments[jitters] { options.jitters = jitters }
        options.descriptor = descriptor
        do { try options.validate() } catch { throw UsageError(error.message) }
        return options
    }

    /// Builds the engine the command line describes.
    /// Loads the 68-point model only when the options use it, the CNN only when asked for.
    static func engine(_ arguments: ParsedArguments, poolSize: Int, options: FaceOptions, loadCNN: Bool = false) throws -> FaceEngine {
        var environment = ProcessInfo.processInfo.environment
        if let directory = arguments[modelsDirectory] { environment["CUSTOS_MODELS_DIR"] = directory }
        var limits = ImageLimits.default
        if let bytes = arguments[maxImageBytes] { limits.maxBytes = bytes }
        if let pixels = arguments[maxImagePixels] { limits.maxPixels = pixels }
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
