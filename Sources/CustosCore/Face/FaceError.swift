/// Why a face operation failed: a stable snake_case `code` (returned to API clients as is)
/// and a one-line `message` for logs and operators.
public struct FaceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Stable codes; never renamed, only added to.
    public enum Code: String, Sendable, CaseIterable, Codable {
        /// The image has no bytes.
        case imageEmpty = "image_empty"
        /// More bytes than the configured limit (checked before looking inside).
        case imageTooLarge = "image_too_large"
        /// The header declares more pixels than the configured limit (checked before decoding).
        case imageDimensionsTooLarge = "image_dimensions_too_large"
        /// The data ends before the image does.
        case imageTruncated = "image_truncated"
        /// The data is malformed.
        case imageCorrupt = "image_corrupt"
        /// Neither JPEG nor PNG.
        case imageUnsupportedFormat = "image_unsupported_format"
        /// The image file cannot be read (command-line tools).
        case imageUnreadable = "image_unreadable"
        /// A model file cannot be found or opened.
        case modelMissing = "model_missing"
        /// A model file is damaged or of the wrong kind.
        case modelInvalid = "model_invalid"
        /// The request needs an optional model that is not loaded (68-point landmarks, CNN).
        case modelUnavailable = "model_unavailable"
        /// The CPU lacks the instructions the engine was built for.
        case cpuUnsupported = "cpu_unsupported"
        /// Options or arguments out of range.
        case invalidOptions = "invalid_options"
        /// A descriptor of the wrong length or with non-finite values.
        case invalidDescriptor = "invalid_descriptor"
        /// No face where one is required (comparison, enrollment).
        case noFace = "no_face"
        /// Memory ran out.
        case outOfMemory = "out_of_memory"
        /// Anything else inside the engine.
        case engineFailure = "engine_failure"
        /// The work already waiting would keep a new request from starting within the
        /// engine's bound: retry after `retryAfterSeconds`.
        case busy = "busy"
    }

    public let code: Code
    public let message: String
    /// With `busy`: when the queue is expected to have room.
    public let retryAfterSeconds: Int?

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
        retryAfterSeconds = nil
    }

    /// `busy`, to be retried in `seconds` (at least 1).
    public static func busy(retryAfter seconds: Int) -> FaceError {
        FaceError(busyFor: max(1, seconds))
    }

    private init(busyFor seconds: Int) {
        code = .busy
        message = "The face engine is busy; try again in \(seconds) s."
        retryAfterSeconds = seconds
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
