import CustosAPI
import Foundation

/// What the local authentication hook is asked to unlock.
public struct LocalAuthenticationRequest: Sendable, Equatable {
    /// The notification answered; empty for a sign-in.
    public let notificationUUID: String
    /// The notification's action, or `sign_in` for `authenticateBoundUser`.
    public let action: String
    /// What the user approves: the notification's subject, or the sign-in's client.
    public let reason: String
    /// For a sign-in: whether the app asked to show a loader while the device prompts.
    public let showLoader: Bool

    public init(notificationUUID: String, action: String, reason: String, showLoader: Bool = false) {
        self.notificationUUID = notificationUUID
        self.action = action
        self.reason = reason
        self.showLoader = showLoader
    }
}

extension CustosClient {
    /// `getNotifications()`: the signed-in user's pending notifications, newest first. Emits
    /// `onGetNotifications`, on failure too.
    @discardableResult
    public func getNotifications() async throws -> NotificationList {
        let current = session
        return try await emitting(.onGetNotifications, { NotificationsEvent(userID: current.userID ?? "", error: $0, response: $1) }) {
            try await transport.call(Endpoints.notifications, bearer: current.sessionToken)
        }
    }

    /// The notifications already answered, expired or failed, newest first.
    public func getNotificationHistory() async throws -> NotificationList {
        try await transport.call(Endpoints.notificationHistory, bearer: session.sessionToken)
    }

    /// `updateNotification(uuid, action)`: answers a notification with the step-up its action
    /// demands, as the server says — the password (`onGetPassword` with challenge mode 3,
    /// answered by `setPassword`; asked again while attempts are left), the device key's
    /// signature over the notification as shown (after `localAuthentication`; its cancel is error
    /// 131), or a selfie (`onGetIDVSelfieProcessStartConfirmation` with workflow 9; declining is
    /// error 240). The notification stays pending after a cancel. Emits `onUpdateNotification`
    /// once, whatever happens.
    ///
    /// Pass the notification the user saw (from `getNotifications`): a level 3 signature covers
    /// exactly its content, so an answer to anything else fails. `number` is the user's pick
    /// with number matching.
    @discardableResult
    public func updateNotification(_ shown: NotificationInfo, action: String, number: Int? = nil,
                                   frameSource: (any FrameSource)? = nil) async throws -> UpdateNotificationResult {
        let userID = session.userID ?? ""
        let outcome: (UpdateNotificationResult?, CustosError?)
        do {
            outcome = try await answer(shown, action: action, number: number, frameSource: frameSource)
        } catch {
            let failure = CustosError(error)
            events.emit(.onUpdateNotification, UpdateNotificationEvent(userID: userID, error: failure, response: nil))
            throw failure
        }
        events.emit(.onUpdateNotification, UpdateNotificationEvent(userID: userID, error: outcome.1, response: outcome.0))
        if let response = outcome.0 { return response }
        throw outcome.1 ?? CustosError.invalidResponse("no answer")
    }

    /// The seed's form: answers by uuid, with the notification as the server lists it now.
    @discardableResult
    public func updateNotification(uuid: String, action: String, number: Int? = nil,
                                   frameSource: (any FrameSource)? = nil) async throws -> UpdateNotificationResult {
        let list = try await transport.call(Endpoints.notifications, bearer: session.sessionToken)
        guard let shown = list.notifications.first(where: { $0.notificationUUID == uuid }) else {
            let failure = CustosError.server(status: 404, code: "notification_not_found", message: "No pending notification \(uuid).")
            events.emit(.onUpdateNotification, UpdateNotificationEvent(userID: session.userID ?? "", error: failure, response: nil))
            throw failure
        }
        return try await updateNotification(shown, action: action, number: number, frameSource: frameSource)
    }

    /// The app's answer to `onGetPassword`: the password, or nil when the user gave up.
    public func setPassword(_ password: String?, challengeMode: ChallengeMode = .password) {
        passwordPrompts.answer(password, key: String(challengeMode.rawValue))
    }

    /// The answer and its step-ups; an error beside a result is the cancel that ended it.
    private func answer(_ shown: NotificationInfo, action: String, number: Int?,
                        frameSource: (any FrameSource)?) async throws -> (UpdateNotificationResult?, CustosError?) {
        let bearer = session.sessionToken
        let uuid = shown.notificationUUID
        var request = UpdateNotificationRequest(action: action, number: number)
        var result = try await transport.call(Endpoints.updateNotification, uuid, body: request, bearer: bearer)
        while let stepUp = result.stepUp, result.statusCode == .stepUpRequired || result.statusCode == .credentialsRejected {
            switch stepUp.authLevel {
            case .password:
                guard let password = try await askPassword(uuid, attemptsLeft: result.attemptsLeft ?? 0) else {
                    // Dismissed after a wrong password, the answer is that 401 (with the attempts left).
                    if result.statusCode == .credentialsRejected { return (result, nil) }
                    return (nil, .passwordPromptDismissed)
                }
                request.password = password
            case .deviceSignature:
                if result.statusCode == .credentialsRejected { return (result, nil) }
                if let unlock = configuration.localAuthentication,
                   !(await unlock(LocalAuthenticationRequest(notificationUUID: uuid, action: action, reason: shown.subject))) {
                    return (nil, .localAuthenticationCancelled)
                }
                guard let key = try requireKeyStore().key(for: account(session.userID ?? "")) else {
                    throw CustosError.invalidConfiguration("this device has no key for the signed-in user")
                }
                let content = StepUpContent.bytes(notificationUUID: uuid, action: action, subject: shown.subject, message: shown.message,
                                                  details: shown.authorizationDetails, number: number)
                request.signature = try key.sign(content).base64URLEncodedString
            case .serverBiometric:
                guard let transactionID = stepUp.idvAuditTransactionID else {
                    throw CustosError.invalidResponse("a server biometric step-up without its transaction")
                }
                let cancel = try await selfie(transactionID, reason: shown.subject, bearer: bearer, frameSource: frameSource)
                request.idvTransactionID = transactionID
                result = try await transport.call(Endpoints.updateNotification, uuid, body: request, bearer: bearer)
                return (result, cancel ?? (result.statusCode == .userCancelledSelfie ? .userCancelled : nil))
            default:
                throw CustosError.invalidResponse("a step-up of auth level \(stepUp.authLevel) this SDK does not know")
            }
            result = try await transport.call(Endpoints.updateNotification, uuid, body: request, bearer: bearer)
        }
        return (result, nil)
    }

    private func askPassword(_ uuid: String, attemptsLeft: Int) async throws -> String? {
        guard events.hasHandler(for: .onGetPassword) else {
            throw CustosError.invalidConfiguration("the action needs the password: install an onGetPassword handler")
        }
        let request = PasswordRequest(userID: session.userID ?? "", challengeMode: .password, attemptsLeft: attemptsLeft,
                                      notificationUUID: uuid)
        let events = self.events
        return await passwordPrompts.wait(key: String(ChallengeMode.password.rawValue), timeout: configuration.startConfirmationTimeout) {
            events.emit(.onGetPassword, request)
        }
    }

    /// The workflow 9 selfie the action started; the cancel error when it was declined or abandoned.
    private func selfie(_ transactionID: String, reason: String, bearer: String?, frameSource: (any FrameSource)?) async throws -> CustosError? {
        guard let source = frameSource ?? configuration.frameSource else {
            throw CustosError.invalidConfiguration("no FrameSource configured for the selfie capture")
        }
        let asked = IDVSelfieStartRequest(workflow: .stepUpBiometric, idvAuditTransactionID: transactionID, reason: reason)
        let outcome = try await confirmAndUpload(asked, bearer: bearer, start: .onGetIDVSelfieProcessStartConfirmation, process: "selfie process") {
            id, bearer in try await self.uploadSelfie(id, bearer: bearer, source: source, document: nil)
        }
        switch outcome {
        case .answered(_, let error): return error
        case .failed(let error): return error
        }
    }
}
