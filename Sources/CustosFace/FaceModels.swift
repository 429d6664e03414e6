import CFaceShim
import CustosCore
import Foundation

/// dlib's models, loaded once and shared read-only by every engine instance.
final class FaceModels: @unchecked Sendable {
    let handle: OpaquePointer
    let has68: Bool
    let hasCNN: Bool

    /// Loads the 5-point model (required), the descriptor (required) and, when asked and
    /// present, the 68-point and CNN models.
    init(files: FaceModelFiles, use68: Bool, useCNN: Bool) throws(FaceError) {
        var cpu = cfs_error()
        guard cfs_cpu_supported(&cpu) == 1 else { throw FaceError(.cpuUnsupported, ShimStatus.message(cpu)) }
        for required in [files.shapePredictor5, files.descriptor] where !FileManager.default.fileExists(atPath: required.path) {
            throw FaceError(.modelMissing, "missing model file \(required.path) (set CUSTOS_MODELS_DIR, or run "
                            + "scripts/install-deps.sh to install face_recognition_models)")
        }
        let exists = { (url: URL) in FileManager.default.fileExists(atPath: url.path) }
        let path68 = use68 && exists(files.shapePredictor68) ? files.shapePredictor68.path : ""
        let pathCNN = useCNN && exists(files.cnnDetector) ? files.cnnDetector.path : ""
        var models: OpaquePointer?
        try ShimStatus.check { error in
            files.shapePredictor5.path.withCString { shape5 in
                path68.withCString { shape68 in
                    files.descriptor.path.withCString { descriptor in
                        pathCNN.withCString { cnn in
                            var paths = cfs_model_paths(shape_predictor_5: shape5, shape_predictor_68: shape68,
                                                        face_descriptor: descriptor, cnn_detector: cnn)
                            return cfs_models_load(&paths, &models, error)
                        }
                    }
                }
            }
        }
        guard let models else { throw FaceError(.engineFailure, "model loading returned nothing") }
        handle = models
        has68 = cfs_models_has_shape_predictor_68(models) == 1
        hasCNN = cfs_models_has_cnn_detector(models) == 1
    }

    deinit { cfs_models_free(handle) }
}
