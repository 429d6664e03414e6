import CustosCore
import Foundation

/// Where dlib's model files are: `CUSTOS_MODELS_DIR`, else the `face_recognition_models`
/// package installed into the project's virtualenv (`.custos/venv`, see
/// scripts/install-deps.sh), looked for above the working directory and the executable.
public struct FaceModelFiles: Sendable, Hashable {
    public static let shapePredictor5Name = "shape_predictor_5_face_landmarks.dat"
    public static let shapePredictor68Name = "shape_predictor_68_face_landmarks.dat"
    public static let descriptorName = "dlib_face_recognition_resnet_model_v1.dat"
    public static let cnnDetectorName = "mmod_human_face_detector.dat"

    public var directory: URL

    public init(directory: URL) { self.directory = directory }

    public var shapePredictor5: URL { directory.appendingPathComponent(Self.shapePredictor5Name) }
    public var shapePredictor68: URL { directory.appendingPathComponent(Self.shapePredictor68Name) }
    public var descriptor: URL { directory.appendingPathComponent(Self.descriptorName) }
    public var cnnDetector: URL { directory.appendingPathComponent(Self.cnnDetectorName) }

    /// Resolves the directory; throws `model_missing` saying where it looked.
    public static func locate(environment: [String: String] = ProcessInfo.processInfo.environment,
                              searchFrom starts: [URL] = defaultSearchStarts()) throws(FaceError) -> FaceModelFiles {
        if let configured = environment["CUSTOS_MODELS_DIR"], !configured.isEmpty {
            return FaceModelFiles(directory: URL(fileURLWithPath: configured))
        }
        var looked: [String] = []
        for start in starts {
            var directory = start.standardizedFileURL
            while true {
                let venvLib = directory.appendingPathComponent(".custos/venv/lib")
                looked.append(venvLib.path)
                if let found = modelsInVenv(lib: venvLib) { return FaceModelFiles(directory: found) }
                let parent = directory.deletingLastPathComponent()
                if parent.path == directory.path { break }
                directory = parent
            }
        }
        throw FaceError(.modelMissing, "no face models: set CUSTOS_MODELS_DIR, or run scripts/install-deps.sh to install "
                        + "face_recognition_models into .custos/venv (looked in \(looked.first ?? "nothing") and above)")
    }

    /// The working directory and the executable's directory.
    public static func defaultSearchStarts() -> [URL] {
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? ".").resolvingSymlinksInPath().deletingLastPathComponent()
        return [cwd, executable]
    }

    private static func modelsInVenv(lib: URL) -> URL? {
        guard let pythons = try? FileManager.default.contentsOfDirectory(atPath: lib.path) else { return nil }
        for python in pythons.sorted().reversed() where python.hasPrefix("python") {
            let models = lib.appendingPathComponent(python).appendingPathComponent("site-packages/face_recognition_models/models")
            if FileManager.default.fileExists(atPath: models.appendingPathComponent(shapePredictor5Name).path) { return models }
        }
        return nil
    }
}
