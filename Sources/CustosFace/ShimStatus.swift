import CFaceShim
import CustosCore

/// Turns CFaceShim statuses into `FaceError`s.
enum ShimStatus {
    /// The stable face error code for a shim status.
    static func code(_ status: Int32) -> FaceError.Code {
        switch UInt32(bitPattern: status) {
        case CFS_IMAGE_EMPTY.rawValue: return .imageEmpty
        case CFS_IMAGE_TOO_LARGE.rawValue: return .imageTooLarge
        case CFS_IMAGE_DIMENSIONS_TOO_LARGE.rawValue: return .imageDimensionsTooLarge
        case CFS_IMAGE_TRUNCATED.rawValue: return .imageTruncated
        case CFS_IMAGE_CORRUPT.rawValue: return .imageCorrupt
        case CFS_IMAGE_UNSUPPORTED_FORMAT.rawValue: return .imageUnsupportedFormat
        case CFS_MODEL_MISSING.rawValue: return .modelMissing
        case CFS_MODEL_INVALID.rawValue: return .modelInvalid
        case CFS_MODEL_UNAVAILABLE.rawValue: return .modelUnavailable
        case CFS_CPU_UNSUPPORTED.rawValue: return .cpuUnsupported
        case CFS_INVALID_ARGUMENT.rawValue: return .invalidOptions
        case CFS_OUT_OF_MEMORY.rawValue: return .outOfMemory
        default: return .engineFailure
        }
    }

    /// The message the shim wrote into `error`.
    static func message(_ error: cfs_error) -> String {
        withUnsafeBytes(of: error.message) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    /// Runs a shim call that fills a `cfs_error`; throws when it returns anything but CFS_OK.
    static func check(_ call: (UnsafeMutablePointer<cfs_error>) -> Int32) throws(FaceError) {
        var error = cfs_error()
        let status = call(&error)
        guard status == Int32(CFS_OK.rawValue) else { throw FaceError(code(status), message(error)) }
    }
}
