import CustosAPI

/// A login, activation or password change in the contract's three tiers: `error` (transport,
/// server, configuration; `longErrorCode` is never 0), then `response.statusCode` (100, 110,
/// 153, 401), then the detail (`session`, `attemptsLeft`, `passwordChangeToken`). Fires on
/// failure too, with `error` set and no `response`.
public struct AuthenticationEvent: Sendable, Equatable {
    public let userID: String
    public let error: CustosError?
    public let response: AuthenticationResult?
}

extension CustosEvent where Payload == AuthenticationEvent {
    /// A login (or activation) finished or failed; check `error`, then `response.statusCode`
    /// (100, 110, 153, 401).
    public static var onUserLoggedIn: CustosEvent<AuthenticationEvent> { CustosEvent("onUserLoggedIn") }
    /// A password change finished or failed.
    public static var onPasswordChanged: CustosEvent<AuthenticationEvent> { CustosEvent("onPasswordChanged") }
}

/// Who logged off, and why: `statusCode` 100 after `logout()`, 153 when an answer said the
/// attempts are exhausted (the user is locked and the session is gone). A `logout()` that
/// failed fires with `error` and no `statusCode`; the session is then kept.
public struct LogoffInfo: Sendable, Equatable {
    public let userID: String
    public let statusCode: StatusCode?
    public let error: CustosError?
}

extension CustosEvent where Payload == LogoffInfo {
    public static var onUserLoggedOff: CustosEvent<LogoffInfo> { CustosEvent("onUserLoggedOff") }
}
