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
    /// answered by `setPassword`; asked again while attempts are left) or, with
    /// `levelOneByLocalAuthentication`, the device's local authentication instead (the seed's
    /// LDA: `localAuthentication` prompts, the key signs; cancelled is error 131), the device key's
    /// signature over the notification as shown (after `localAuthentication`; its cancel is error
    /// 131), or a selfie (`onGetIDVSelfieProcessStartConfirmation` with workflow 9; declining is
    /// error 240). The notification stays pending after a cancel. Emits `onUpdateNotification`
    /// once, whatever happens.
    ///
    /// An answer of 153 (the attempts are exhausted: the user is locked) or 110 (the password
    /// expired) ends the session, as in the seed: `onUpdateNotification` carries that status
    /// first, then `onUserLoggedOff` follows with it. After 110 the user signs in again, which
    /// answers 110 with a `passwordChangeToken` for `changePassword`.
    ///
    /// Pass the notification the user saw (from `getNotifications`): a level 3 signature covers
    /// exactly its content, so an answer to anything else fails. `number` is the user's pick
    /// with number matching.
    @discardableResult
    public func updateNotification(_ shown: NotificationInfo, action: String, number: Int? = nil,
                                   frameSource: (any FrameSource)? = nil) async throws -> UpdateNotificationResult {
        try await emittingUpdate { try await answer(shown, action: action, number: number, frameSource: frameSource) }
    }

    /// The seed's form: answers by uuid, with the notification as the server lists it now. A
    /// failure to list, or a notification no longer pending, is emitted as the answer's failure.
    @discardableResult
    public func updateNotification(uuid: String, action: String, number: Int? = nil,
                                   frameSource: (any FrameSource)? = nil) async throws -> UpdateNotificationResult {
        try await emittingUpdate {
            let list = try await transport.call(Endpoints.notifications, bearer: session.sessionToken)
            guard let shown = list.notifications.first(where: { $0.notificationUUID == uuid }) else {
                throw CustosError.server(status: 404, code: "notification_not_found", message: "No pending notification \(uuid).")
            }
            return try await answer(shown, action: action, number: number, frameSource: frameSource)
        }
    }

    /// Emits `onUpdateNotification` once for `body`'s outcome, then the log-off a 153 or 110 caused.
    private func emittingUpdate(_ body: () async throws -> (UpdateNotificationResult?, CustosError?)) async throws -> UpdateNotificationResult {
        let userID = session.userID ?? ""
        return try await loggingOffAfter {
            let outcome: (response: UpdateNotificationResult?, error: CustosError?)
            do {
                outcome = try await body()
            } catch {
                let failure = CustosError(error)
                events.emit(.onUpdateNotification, UpdateNotificationEvent(userID: userID, error: failure, response: nil))
                throw failure
            }
            events.emit(.onUpdateNotification, UpdateNotificationEvent(userID: userID, error: outcome.error, response: outcome.response))
            if outcome.response?.statusCode == StatusCode.passwordExpired {
                // The server ended the session with its 110 answer.
                _ = forgetSession(ifUser: userID)
                logOff(LogoffInfo(userID: userID, statusCode: StatusCode.passwordExpired, error: nil))
            }
            if let response = outcome.response { return response }
            throw outcome.error ?? CustosError.invalidResponse("no answer")
        }
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
            case .password where request.signature != nil:
                // The server judged the device's signature: a refusal is that answer, never a silent fall back to the password.
                return (result, nil)
            case .password where stepUp.signatureAccepted == true && configuration.levelOneByLocalAuthentication
                && configuration.localAuthentication != nil:
                guard let signature = try await deviceSignature(shown, action: action, number: number) else {
                    return (nil, .localAuthenticationCancelled)
                }
                request.signature = signature
            case .password:
                guard let password = try await askPassword(uuid, attemptsLeft: result.attemptsLeft ?? 0) else {
                    // Dismissed after a wrong password, the answer is that 401 (with the attempts left).
                    if result.statusCode == .credentialsRejected { return (result, nil) }
                    return (nil, .passwordPromptDismissed)
                }
                request.password = password
            case .deviceSignature:
                if result.statusCode == .credentialsRejected { return (result, nil) }
                guard let signature = try await deviceSignature(shown, action: action, number: number) else {
                    return (nil, .localAuthenticationCancelled)
                }
                request.signature = signature
            case .serverBiometric:
                guard let transactionID = stepUp.idvAuditTransactionID else {
                    throw CustosError.invalidResponse("a server biometric step-up without its transaction")
                }
                let selfie = try await selfie(transactionID, reason: shown.subject, bearer: bearer, frameSource: frameSource)
                if case .answered(let judged, _) = selfie, judged.statusCode == StatusCode.attemptsExhausted {
                    // The selfie used the last attempt: the user is locked and the session is over,
                    // so there is nothing to post; the answer is that 153.
                    return (UpdateNotificationResult(statusCode: judged.statusCode, statusMessage: judged.statusMessage, notificationUUID: uuid,
                                                     action: action, attemptsLeft: 0, notification: shown,
                                                     lockedUntil: judged.lockedUntil), nil)
                }
                let cancel: CustosError? = switch selfie {
                case .answered(_, let error): error
                case .failed(let error): error
                }
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

    /// The device key's signature over the notification as shown, after the app's local
    /// authentication approved it; nil when the user cancelled that prompt (131).
    private func deviceSignature(_ shown: NotificationInfo, action: String, number: Int?) async throws -> String? {
        let uuid = shown.notificationUUID
        if let unlock = configuration.localAuthentication,
           !(await unlock(LocalAuthenticationRequest(notificationUUID: uuid, action: action, reason: shown.subject))) {
            return nil
        }
        guard let key = try requireKeyStore().key(for: account(session.userID ?? "")) else {
            throw CustosError.invalidConfiguration("this device has no key for the signed-in user")
        }
        let content = StepUpContent.bytes(notificationUUID: uuid, action: action, subject: shown.subject, message: shown.message,
                                          details: shown.authorizationDetails, number: number)
        return try key.sign(content).base64URLEncodedString
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

    /// The workflow 9 selfie the action started: the server's verdict, with the cancel error when
    /// it was declined or abandoned.
    private func selfie(_ transactionID: String, reason: String, bearer: String?, frameSource: (any FrameSource)?) async throws -> SelfieOutcome {
        guard let source = frameSource ?? configuration.frameSource else {
            throw CustosError.invalidConfiguration("no FrameSource configured for the selfie capture")
        }
        let asked = IDVSelfieStartRequest(workflow: .stepUpBiometric, idvAuditTransactionID: transactionID, reason: reason)
        return try await confirmAndUpload(asked, bearer: bearer, start: .onGetIDVSelfieProcessStartConfirmation, process: "selfie process") {
            id, bearer in try await self.uploadSelfie(id, bearer: bearer, source: source, document: nil)
        }
    }
}
