import CustosAPI

extension CustosEvent where Payload == AuthenticationResult {
    /// A login (or activation) finished; check `statusCode` (100, 110, 153, 401).
    public static var onUserLoggedIn: CustosEvent<AuthenticationResult> { CustosEvent("onUserLoggedIn") }
    /// A password change finished.
    public static var onPasswordChanged: CustosEvent<AuthenticationResult> { CustosEvent("onPasswordChanged") }
}

/// Who logged off.
public struct LogoffInfo: Sendable, Equatable {
    public let userID: String
}

extension CustosEvent where Payload == LogoffInfo {
    public static var onUserLoggedOff: CustosEvent<LogoffInfo> { CustosEvent("onUserLoggedOff") }
}
