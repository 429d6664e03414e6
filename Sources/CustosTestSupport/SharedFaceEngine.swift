import CustosCore
import CustosFace

/// The one face engine of a test run: every test target runs in one process, and a second
/// engine (about 100 MB of models) loaded while another suite measures memory reads as a leak.
public enum SharedFaceEngine {
    /// Loaded on first use (about a second), from the models `FaceModelFiles.locate` finds
    /// above the package.
    public static let result: Result<FaceEngine, FaceError> = Result { () throws(FaceError) -> FaceEngine in
        let files = try FaceModelFiles.locate(searchFrom: [SharedData.packageRoot])
        return try FaceEngine(configuration: FaceEngineConfiguration(models: files, poolSize: 2))
    }

    public static func engine() throws -> FaceEngine { try result.get() }
}
