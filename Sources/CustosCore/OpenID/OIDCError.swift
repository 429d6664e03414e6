import Foundation

/// Why a client registration or a native sign-in failed, in the API's error envelope (the
/// OAuth endpoints answer `OAuthError` instead); `code` is the wire code.
public struct OIDCError: Error, Equatable, Sendable {
    public enum Kind: Sendable { case invalidInput, unauthenticated, forbidden, notFound, gone }

    public let kind: Kind
    public let code: String
    public let message: String

    public static func invalid(_ field: String, _ reason: String) -> OIDCError {
        OIDCError(kind: .invalidInput, code: "invalid_field", message: "\(field) \(reason)")
    }
    public static let clientNotFound = OIDCError(kind: .notFound, code: "client_not_found", message: "No such OpenID client.")
    /// The device is not bound to any user (`authenticateBoundUser` answers `unknownUser`).
    public static let unknownUser = OIDCError(kind: .notFound, code: "unknown_user",
                                              message: "This device is not bound to a user; register it first.")
    /// The device is revoked, or its user disabled or locked.
    public static let accessDenied = OIDCError(kind: .forbidden, code: "access_denied",
                                               message: "This device or its user may not sign in.")
    public static let authorizationNotFound = OIDCError(kind: .gone, code: "authorization_expired",
                                                        message: "The sign-in request is unknown, expired or already answered; start again.")
    public static func assertionRejected(_ reason: String) -> OIDCError {
        OIDCError(kind: .unauthenticated, code: "assertion_rejected", message: "The device's assertion was refused: \(reason).")
    }
}
