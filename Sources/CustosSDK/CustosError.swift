import CustosAPI

/// Every failure the SDK reports: a stable `code`, a human `message`, and the contract's
/// numeric `longErrorCode`, which is never 0, so the seed's `if error.longErrorCode != 0`
/// check holds for every error the SDK throws or puts in an event.
///
/// A struct over a private kind, so new kinds of failure break no one's `switch`: compare
/// with the static members (`error == .userCancelled`), or read `code` or `longErrorCode`.
/// Server errors carry the server's code (`database_unavailable`, `not_found`, …) and its
/// HTTP status.
///
/// `longErrorCode`, fixed per kind so apps can switch on it:
///
/// | longErrorCode | code | when |
/// | --- | --- | --- |
/// | 240 | `user_cancelled` | the user (or the app) declined or abandoned the selfie: the start confirmation answered `false`, left unanswered past `startConfirmationTimeout`, the awaiting task cancelled, or `FrameSource.capture` threw (seed 002: "User Cancelled", "Error Code: 240") |
/// | 131 | `local_authentication_cancelled` | the device's local authentication (biometrics unlocking the device key) was cancelled or declined: at a step-up, or at `authenticateBoundUser` (seed 002: "LDA cancelled") |
/// | 110, 153, … | the server's code | an error answer whose body carries a contract `status_code` (110 password expired, 153 attempts exhausted): that status |
/// | 300–599 | the server's code, else `http_<status>` | any other error answer: its HTTP status itself; 503 `server_busy` and 429 carry `retryAfterSeconds`, to try again then rather than wait on a busy server (a selfie or document upload is sent again by itself, up to 3 times, before `server_busy` reaches the app) |
/// | 901 | `transport_failed` | the server could not be reached (refused, timed out, DNS, TLS) |
/// | 902 | `invalid_response` | the server answered something that is not the expected JSON |
/// | 903 | `invalid_configuration` | the app's setup is wrong (URL, no key store or frame source, unreadable key, frames that cannot fit the challenge) |
/// | 904 | `component_failed` | an app-supplied component (a `DeviceKeyStore`, a device key) threw an error of its own; `message` describes it |
/// | 905 | `unknown_user` | `authenticateBoundUser` on a device that is not bound to a user (no fallback: call `authenticate`) |
/// | 906 | `access_denied` | `authenticateBoundUser`: the device is revoked, or its user disabled or locked |
/// | 907 | `timeout` | `authenticateBoundUser`: the local authentication got no answer within the request's timeout |
/// | 908 | `password_prompt_dismissed` | the app's password prompt (`onGetPassword` at a step-up, the credentials of `authenticate`'s fallback) was dismissed, answered nothing, or was left unanswered past `startConfirmationTimeout`; a notification stays pending, an unbound device stays unbound |
///
/// Codes 900 and up are the SDK's own, chosen above every HTTP status and contract status so
/// they can never be mistaken for an answer from the server.
public struct CustosError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Kind: Hashable, Sendable {
        case transport
        case invalidResponse
        /// `contractStatus`: the `status_code` the error answer's body carries, if any.
        case server(status: Int, contractStatus: Int?)
        case invalidConfiguration
        case userCancelled
        case localAuthenticationCancelled
        case componentFailed
        case unknownUser
        case accessDenied
        case timeout
        case passwordPromptDismissed
    }

    private let kind: Kind
    /// Stable and machine-readable: `transport_failed`, `invalid_response`, or the server's code.
    public let code: String
    /// For people.
    public let message: String
    /// Seconds the server asked to wait before retrying (its `Retry-After`): a busy server
    /// (503 `server_busy`: the face engine's queue or every worker full), a throttled caller
    /// (429). Nil when the answer named none.
    public internal(set) var retryAfterSeconds: Int?

    /// The HTTP status of a server error, nil for failures that never reached the server.
    public var httpStatus: Int? {
        if case .server(let status, _) = kind { return status }
        return nil
    }

    /// The contract's numeric error code (see the table above); never 0.
    public var longErrorCode: Int {
        switch kind {
        case .userCancelled: StatusCode.userCancelledSelfie.rawValue
        case .localAuthenticationCancelled: StatusCode.localAuthenticationCancelled.rawValue
        case .server(let status, let contractStatus): contractStatus ?? status
        case .transport: 901
        case .invalidResponse: 902
        case .invalidConfiguration: 903
        case .componentFailed: 904
        case .unknownUser: 905
        case .accessDenied: 906
        case .timeout: 907
        case .passwordPromptDismissed: 908
        }
    }

    public var description: String { "\(code): \(message)" }

    static func transport(_ message: String) -> CustosError {
        CustosError(kind: .transport, code: "transport_failed", message: message)
    }
    static func invalidResponse(_ message: String) -> CustosError {
        CustosError(kind: .invalidResponse, code: "invalid_response", message: message)
    }
    /// An error answer. A `contractStatus` that reads as success (or is not positive) is
    /// ignored, so `longErrorCode` stays non-zero and an error never looks like a success.
    static func server(status: Int, code: String, message: String, contractStatus: Int? = nil) -> CustosError {
        let contract = contractStatus.flatMap { $0 > 0 && !StatusCode(rawValue: $0).isSuccess ? $0 : nil }
        return CustosError(kind: .server(status: status, contractStatus: contract), code: code, message: message)
    }
    static func invalidConfiguration(_ message: String) -> CustosError {
        CustosError(kind: .invalidConfiguration, code: "invalid_configuration", message: message)
    }
    /// A 240 with a message that says how the selfie was abandoned (equal to `userCancelled`).
    static func cancelled(_ message: String) -> CustosError {
        CustosError(kind: .userCancelled, code: "user_cancelled", message: message)
    }

    /// Any error as the SDK reports it: a `CustosError` as it is; anything else thrown by an
    /// app-supplied component becomes `component_failed` (904) with its description.
    init(_ error: any Error) {
        if let error = error as? CustosError {
            self = error
        } else {
            self.init(kind: .componentFailed, code: "component_failed", message: String(describing: error))
        }
    }

    private init(kind: Kind, code: String, message: String) {
        self.kind = kind
        self.code = code
        self.message = message
    }

    /// The user declined or cancelled the selfie process (the contract's error 240).
    public static let userCancelled = CustosError(kind: .userCancelled, code: "user_cancelled",
                                                  message: "The user cancelled the selfie process.")

    /// The device's local authentication (the platform biometrics that unlock the device key)
    /// was cancelled (the contract's error 131).
    public static let localAuthenticationCancelled = CustosError(kind: .localAuthenticationCancelled,
                                                                 code: "local_authentication_cancelled",
                                                                 message: "The local device authentication was cancelled.")

    /// Bound-device sign-in on a device that is not bound to a user.
    public static let unknownUser = CustosError(kind: .unknownUser, code: "unknown_user",
                                                message: "This device is not bound to a user; call authenticate to register it.")
    /// The old name of `localAuthenticationCancelled` at bound-device sign-in: one code, 131, one case.
    @available(*, deprecated, renamed: "localAuthenticationCancelled")
    public static var userCanceled: CustosError { .localAuthenticationCancelled }
    /// The app's password prompt was dismissed (or answered nothing): not the selfie's 240.
    public static let passwordPromptDismissed = CustosError(kind: .passwordPromptDismissed, code: "password_prompt_dismissed",
                                                            message: "The password prompt was dismissed.")
    /// Bound-device sign-in: the device is revoked, or its user disabled or locked.
    public static let accessDenied = CustosError(kind: .accessDenied, code: "access_denied",
                                                 message: "This device or its user may not sign in.")
    /// Bound-device sign-in: no answer from the local authentication in time.
    public static let timeout = CustosError(kind: .timeout, code: "timeout", message: "The local authentication was not answered in time.")

    /// The server could not be reached (connection refused, timeout, DNS).
    public static let transportFailed = CustosError(kind: .transport, code: "transport_failed", message: "")

    /// Errors are equal when their kind and code are; messages are for people (and a server
    /// error's statuses follow from its code).
    public static func == (a: CustosError, b: CustosError) -> Bool {
        switch (a.kind, b.kind) {
        case (.server, .server): a.code == b.code
        default: a.kind == b.kind && a.code == b.code
        }
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
