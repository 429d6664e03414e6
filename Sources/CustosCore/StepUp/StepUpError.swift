import Foundation

/// Why a notification could not be created or answered; `code` is the wire code.
public struct StepUpError: DomainError, Equatable {
    public let kind: ErrorKind
    public let code: String
    public let message: String

    public static func invalid(_ field: String, _ reason: String) -> StepUpError {
        StepUpError(kind: .invalidInput, code: "invalid_field", message: "\(field) \(reason)")
    }
    public static let notFound = StepUpError(kind: .notFound, code: "notification_not_found", message: "No such notification.")
    public static func closed(_ status: String) -> StepUpError {
        StepUpError(kind: .conflict, code: "notification_closed", message: "The notification was already \(status).")
    }
    public static let expired = StepUpError(kind: .gone, code: "notification_expired", message: "The notification has expired.")
    public static let numberMismatch = StepUpError(kind: .forbidden, code: "number_mismatch",
                                                   message: "The number sent is not the one shown; the notification is closed.")
    public static let numberRequired = StepUpError(kind: .invalidInput, code: "number_required",
                                                   message: "This notification uses number matching: type the number its sender shows.")
    public static let levelNotAllowed = StepUpError(kind: .invalidInput, code: "auth_level_not_allowed",
                                                    message: "auth_level 2 (app-defined) is not enabled on this server.")
    public static func tooMany(_ what: String) -> StepUpError {
        StepUpError(kind: .throttled, code: "too_many_pending", message: "Too many pending notifications \(what).")
    }
    public static let stepUpMismatch = StepUpError(kind: .conflict, code: "step_up_mismatch",
                                                   message: "The selfie transaction is not the one this notification's answer started.")
    public static let stepUpUnfinished = StepUpError(kind: .conflict, code: "step_up_unfinished",
                                                     message: "The selfie transaction has not finished.")
    public static let noBoundDevice = StepUpError(kind: .forbidden, code: "device_not_bound",
                                                  message: "The session's device is not bound to the user.")
    public static let biometricsUnavailable = StepUpError(kind: .conflict, code: "idv_unavailable",
                                                          message: "Server biometrics are not enabled on this server.")
    public static func invalidCallback(_ reason: String) -> StepUpError {
        StepUpError(kind: .invalidInput, code: "invalid_callback_url", message: "callback_url \(reason)")
    }
}
