import Foundation

/// Why a client registration or a native sign-in failed, in the API's error envelope (the
/// OAuth endpoints answer `OAuthError` instead); `code` is the wire code.
public struct OIDCError: DomainError, Equatable {

    public let kind: ErrorKind
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
    /// The request named another user (`login_hint`, `id_token_hint`) than the device's.
    public static let otherUser = OIDCError(kind: .forbidden, code: "login_required",
                                            message: "The sign-in request is for another user (login_hint or id_token_hint); sign in as that user.")
    public static let authorizationNotFound = OIDCError(kind: .gone, code: "authorization_expired",
                                                        message: "The sign-in request is unknown, expired or already answered; start again.")
    /// The password a passkey registration asks for again was not accepted (`outcome` from
    /// `IdentityService.verifyStepUpPassword`): 401 with the attempts left, 423 once they ran out
    /// (the user is then locked, as at login), 401 `password_expired` when it must be changed first.
    public static func passwordRejected(_ outcome: AuthenticationOutcome) -> OIDCError {
        switch outcome.status {
        case .attemptsExhausted:
            OIDCError(kind: .locked, code: "attempts_exhausted", message: "Attempts exhausted; the user is locked for a while.")
        case .passwordExpired:
            OIDCError(kind: .unauthenticated, code: "password_expired", message: "The password has expired; change it first.")
        default:
            OIDCError(kind: .unauthenticated, code: "credentials_rejected",
                      message: "The password was not accepted; \(outcome.attemptsLeft) attempts left.")
        }
    }
    public static func assertionRejected(_ reason: String) -> OIDCError {
        OIDCError(kind: .unauthenticated, code: "assertion_rejected", message: "The device's assertion was refused: \(reason).")
    }
}
