import CustosAPI

/// The user's notifications in the contract's three tiers: `error`, then `response.statusCode`,
/// then `response.notifications`.
public struct NotificationsEvent: Sendable, Equatable {
    public let userID: String
    public let error: CustosError?
    public let response: NotificationList?
}

/// How an answer to a notification ended: `error` (131 the local authentication was cancelled,
/// 240 the selfie was declined — the notification stays pending in both; transport and server
/// failures), then `response.statusCode` (100 done, 401 the proof failed, 110 password expired,
/// 153 attempts exhausted, 600 no template), then the detail.
public struct UpdateNotificationEvent: Sendable, Equatable {
    public let userID: String
    public let error: CustosError?
    public let response: UpdateNotificationResult?
}

/// The app is asked for the password (challenge mode 3 for a notification step-up); answer with
/// `CustosClient.setPassword(_:challengeMode:)`, or `nil` to give up.
public struct PasswordRequest: Sendable, Equatable {
    public let userID: String
    public let challengeMode: ChallengeMode
    public let attemptsLeft: Int
    /// The notification the password answers.
    public let notificationUUID: String
}

extension CustosEvent where Payload == NotificationsEvent {
    public static var onGetNotifications: CustosEvent<NotificationsEvent> { CustosEvent("onGetNotifications") }
}

extension CustosEvent where Payload == UpdateNotificationEvent {
    public static var onUpdateNotification: CustosEvent<UpdateNotificationEvent> { CustosEvent("onUpdateNotification") }
}

extension CustosEvent where Payload == PasswordRequest {
    public static var onGetPassword: CustosEvent<PasswordRequest> { CustosEvent("onGetPassword") }
}
