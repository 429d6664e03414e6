import Foundation

/// An error that maps directly to an HTTP answer with the standard error body
/// `{"error":{"code":"<stable_snake_case>","message":"<human text>"}}` (or a protocol's own, `body`).
///
/// `code` is stable and meant for programs; `message` is for people and never carries
/// internal detail (that goes to the log).
public struct HTTPError: Error, Equatable, Sendable {
    public var status: Int
    public var code: String
    public var message: String
    /// Extra response headers (e.g. `Allow` for 405, `Retry-After` for 503).
    public var headers: [String: String]
    /// A JSON body of a protocol's own error format (OAuth's `{"error":…}`) instead of the
    /// standard one.
    public var body: Data?

    public init(status: Int, code: String, message: String, headers: [String: String] = [:], body: Data? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
        self.body = body
    }

    public static func badRequest(_ code: String = "bad_request", _ message: String) -> HTTPError {
        HTTPError(status: 400, code: code, message: message)
    }
    public static func unprocessable(_ code: String = "invalid_request", _ message: String) -> HTTPError {
        HTTPError(status: 422, code: code, message: message)
    }
    public static let notFound = HTTPError(status: 404, code: "not_found", message: "No such resource.")
    public static func methodNotAllowed(allowed: [HTTPMethod]) -> HTTPError {
        HTTPError(status: 405, code: "method_not_allowed",
                  message: "Method not allowed here; allowed: \(allowed.map(\.rawValue).joined(separator: ", ")).",
                  headers: ["Allow": allowed.map(\.rawValue).joined(separator: ", ")])
    }
    public static func payloadTooLarge(limit: Int) -> HTTPError {
        HTTPError(status: 413, code: "payload_too_large", message: "The request body exceeds the limit of \(limit) bytes.")
    }
    public static func unsupportedMediaType(expected: String) -> HTTPError {
        HTTPError(status: 415, code: "unsupported_media_type", message: "The request body must be \(expected).")
    }
    /// Every worker is busy and the queue is full: answered at once, to be retried.
    public static let serverBusy = HTTPError(status: 503, code: "server_busy", message: "The server is busy; retry shortly.",
                                             headers: ["Retry-After": "1"])
    /// One caller's uploads being received hold its share of the upload memory.
    public static let tooManyUploads = HTTPError(status: 429, code: "too_many_uploads",
                                                 message: "Too many uploads from this client are in progress; retry when one has finished.",
                                                 headers: ["Retry-After": "1"])
    /// The server is shutting down: to be retried (on another node).
    public static let serverStopping = HTTPError(status: 503, code: "server_stopping", message: "The server is shutting down; retry.",
                                                 headers: ["Retry-After": "1"])
    public static let internalError = HTTPError(status: 500, code: "internal_error", message: "An internal error occurred; it has been logged.")
}
