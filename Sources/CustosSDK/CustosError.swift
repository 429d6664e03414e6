/// Every failure the SDK reports: a stable `code` and a human `message`.
///
/// A struct over a private kind, so new kinds of failure break no one's `switch`: compare
/// with the static members (`error == .transportFailed`) or read `code`. Server errors carry
/// the server's code (`database_unavailable`, `not_found`, …) and its HTTP status.
public struct CustosError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Kind: Hashable, Sendable {
        case transport
        case invalidResponse
        case server(status: Int)
        case invalidConfiguration
        case userCancelled
    }

    private let kind: Kind
    /// Stable and machine-readable: `transport_failed`, `invalid_response`, or the server's code.
    public let code: String
    /// For people.
    public let message: String

    /// The HTTP status of a server error, nil for failures that never reached the server.
    public var httpStatus: Int? {
        if case .server(let status) = kind { return status }
        return nil
    }

    public var description: String { "\(code): \(message)" }

    static func transport(_ message: String) -> CustosError {
        CustosError(kind: .transport, code: "transport_failed", message: message)
    }
    static func invalidResponse(_ message: String) -> CustosError {
        CustosError(kind: .invalidResponse, code: "invalid_response", message: message)
    }
    static func server(status: Int, code: String, message: String) -> CustosError {
        CustosError(kind: .server(status: status), code: code, message: message)
    }
    static func invalidConfiguration(_ message: String) -> CustosError {
        CustosError(kind: .invalidConfiguration, code: "invalid_configuration", message: message)
    }

    /// The user declined or cancelled the selfie process (the contract's error 240).
    public static let userCancelled = CustosError(kind: .userCancelled, code: "user_cancelled",
                                                  message: "The user cancelled the selfie process.")

    /// The contract's numeric error code: 240 for `userCancelled`, 0 otherwise.
    public var longErrorCode: Int { kind == .userCancelled ? 240 : 0 }

    /// The server could not be reached (connection refused, timeout, DNS).
    public static let transportFailed = CustosError(kind: .transport, code: "transport_failed", message: "")

    /// Errors are equal when their kind and code are; messages are for people.
    public static func == (a: CustosError, b: CustosError) -> Bool {
        switch (a.kind, b.kind) {
        case (.server, .server): a.code == b.code
        default: a.kind == b.kind && a.code == b.code
        }
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
