import CustosAPI
import Foundation

/// The user's answer to a notification and where it stands: 100 done, 102 a step-up is needed,
/// 401 the proof failed, 110 the password expired, 153 the attempts are exhausted, 600 there is
/// no template for the server biometric step-up, 240 the selfie was cancelled.
public struct NotificationAnswer: Sendable, Equatable {
    public var status: StatusCode
    public var message: String
    public var notification: StepUpNotification
    public var action: String
    public var attemptsLeft: Int?
    public var stepUp: StepUpChallenge?
    /// With 153: when the user's lock ends.
    public var lockedUntil: Date?
}

/// What the app sends with an answer: the number picked and the proof of the action's level.
public struct AnswerProof: Sendable, Equatable {
    public var number: Int?
    public var password: String?
    /// ES256 r‖s, base64url, over `StepUpNotification.signingContent(action:)`.
    public var signature: String?
    public var idvTransactionID: String?
    /// Level 1: a passkey's assertion over `StepUpChallenge.passkey`'s challenge.
    public var assertion: WebAuthnAssertion?

    public init(number: Int? = nil, password: String? = nil, signature: String? = nil, idvTransactionID: String? = nil,
                assertion: WebAuthnAssertion? = nil) {
        self.number = number
        self.password = password
        self.signature = signature
        self.idvTransactionID = idvTransactionID
        self.assertion = assertion
    }
}

extension NotificationService {
    /// Answers from the user's `session` as `answer(userID:deviceID:…)` does; an answer of 110
    /// (the password is right but expired) also ends the session, as the seed's SDK logs off
    /// there. The user signs in again, which answers 110 with a token for the password change.
    public func answer(session: Session, notificationID: String, action: String, proof: AnswerProof) throws -> NotificationAnswer {
        let answer = try answer(userID: session.userID, deviceID: session.deviceID, notificationID: notificationID, action: action, proof: proof)
        if answer.status == .passwordExpired { try identity.logout(session) }
        return answer
    }

    /// Answers the user's notification with `action`, from the session's device. The first call
    /// without proof says which step-up the action's level demands; the call with the proof
    /// ends it. Levels 3 and 4 accept nothing weaker than their own proof. Another user's
    /// notification reads as not found.
    public func answer(userID: String, deviceID: String, notificationID: String, action: String, proof: AnswerProof) throws -> NotificationAnswer {
        let notification = try find(notificationID)
        guard notification.userID == userID else { throw StepUpError.notFound }
        try requireOpen(notification)
        guard let chosen = notification.action(named: action) else {
            throw StepUpError.invalid("action", "is not one of this notification's actions")
        }
        // A binding notice is for the user's other devices: the device it tells of must not
        // be able to answer (and so hide) it.
        if notification.apiKeyID == DeviceApprovalService.noticeSender,
           notification.action(named: DeviceApprovalService.unbindAction(deviceID)) != nil {
            throw StepUpError(kind: .forbidden, code: "notice_about_this_device",
                              message: "This notice tells of this device's own binding: another of the user's devices answers it.")
        }
        if let password = proof.password { try InputRules.checkPasswordLength(password, field: "password") }
        var numberMatched: Bool?
        if let expected = notification.number {
            guard let number = proof.number else { throw StepUpError.numberRequired }
            guard number == expected else {
                // A push the user did not start is closed at the first wrong pick, not left for guessing.
                var failed = notification
                failed.status = .failed
                failed.chosenAction = chosen.action
                failed.answeredBy = deviceID
                if try close(failed, numberMatched: false) == nil { try requireOpen(try find(notificationID)) }
                throw StepUpError.numberMismatch
            }
            numberMatched = true
        }
        let context = AnswerContext(notification: notification, action: chosen, deviceID: deviceID, numberMatched: numberMatched)
        switch chosen.authLevel {
        case .none, .appDefined:
            return try finish(context)
        case .password:
            return try answerWithPassword(context, proof: proof)
        case .deviceSignature:
            return try answerWithDevice(context, signature: proof.signature)
        case .serverBiometric:
            return try answerWithSelfie(context, transactionID: proof.idvTransactionID)
        default:
            throw StepUpError.invalid("action", "demands an auth level this server does not know")
        }
    }

    struct AnswerContext {
        let notification: StepUpNotification
        let action: NotificationAction
        /// The device whose session answers.
        let deviceID: String
        let numberMatched: Bool?

        func reply(_ status: StatusCode, _ message: String, attemptsLeft: Int? = nil, stepUp: StepUpChallenge? = nil) -> NotificationAnswer {
            NotificationAnswer(status: status, message: message, notification: notification, action: action.action,
                               attemptsLeft: attemptsLeft, stepUp: stepUp)
        }

        /// 153: the user is locked (until `lockedUntil`), the session ended.
        func locked(until lockedUntil: Date?) -> NotificationAnswer {
            var answer = reply(.attemptsExhausted, "No attempts are left: the user is locked.", attemptsLeft: 0)
            answer.lockedUntil = lockedUntil
            return answer
        }
    }

    // MARK: Level 1: the password (challenge mode 3), the device's local authentication, or a passkey

    /// Level 1 takes the password; or — from a bound device, after its local authentication
    /// (the seed's LDA) — the device key's signature over the notification as sent; or, for a
    /// user with a passkey, the passkey's assertion with user verification over that content
    /// (the browser's own verification). The challenge says which are accepted. A signature or
    /// an assertion that answers is recorded as what it proved (level 3, `swk`), never as the
    /// password; one that fails is a failed attempt, as a wrong password is.
    private func answerWithPassword(_ context: AnswerContext, proof: AnswerProof) throws -> NotificationAnswer {
        let device = try signingDevice(context)
        let userID = context.notification.userID
        let content = context.notification.signingContent(action: context.action.action)
        let challenge = StepUpChallenge(authLevel: .password, challengeMode: .password, signatureAccepted: device == nil ? nil : true,
                                        passkey: try passkeys?.stepUpOffer(userID: userID, content: content))
        let given = [proof.password != nil, proof.signature != nil, proof.assertion != nil].filter { $0 }.count
        guard given <= 1 else { throw StepUpError.invalid("password", "the password, a signature and a passkey assertion each answer alone") }
        if let signature = proof.signature {
            guard let device else { throw IdentityError.deviceNotConfirmed }
            return try answerWithSignature(context, device: device, signature: signature, challenge: challenge)
        }
        if let assertion = proof.assertion {
            guard let passkeys else { throw StepUpError.invalid("assertion", "this server takes no passkeys") }
            guard try passkeys.verifyStepUp(assertion, userID: userID, content: content) else {
                return try failedProof(context, "The passkey's assertion does not answer this notification as sent.", challenge: challenge)
            }
            return try finish(context, achieved: .deviceSignature)
        }
        guard let password = proof.password else {
            return context.reply(.stepUpRequired, "Enter the password to answer.", attemptsLeft: try identity.attemptsLeft(userID: userID, factor: .credentials),
                                 stepUp: challenge)
        }
        let outcome = try identity.verifyStepUpPassword(userID: userID, password: password)
        switch outcome.status {
        case .success:
            return try finish(context)
        case .passwordExpired:
            return context.reply(.passwordExpired, "The password has expired: sign in again to change it, then answer.", attemptsLeft: outcome.attemptsLeft)
        case .attemptsExhausted:
            return context.locked(until: outcome.lockedUntil)
        default:
            return context.reply(.credentialsRejected, "The password is wrong.", attemptsLeft: outcome.attemptsLeft, stepUp: challenge)
        }
    }

    // MARK: Level 3: the bound device's signature over what was shown

    private func answerWithDevice(_ context: AnswerContext, signature: String?) throws -> NotificationAnswer {
        let challenge = StepUpChallenge(authLevel: .deviceSignature)
        guard let device = try store.device(id: context.deviceID), device.userID == context.notification.userID, !device.isRevoked else {
            throw StepUpError.noBoundDevice
        }
        // A key the password alone bound proves the password, not a bound device.
        guard device.boundBy.isConfirmed else { throw IdentityError.deviceNotConfirmed }
        // Approving another device, or answering a binding notice (unbinding, or acknowledging
        // it away), waits for the end of this one's probation.
        if [DeviceApprovalService.approvalSender, DeviceApprovalService.noticeSender].contains(context.notification.apiKeyID),
           device.isOnProbation(at: clock.now()), let until = device.probationUntil {
            throw IdentityError.deviceOnProbation(until: until)
        }
        guard let signature else {
            return context.reply(.stepUpRequired, "Sign the notification with the device key.", stepUp: challenge)
        }
        return try answerWithSignature(context, device: device, signature: signature, challenge: challenge)
    }

    /// The answering session's device when its key may sign for the user: bound to them, not
    /// revoked, and bound by more than the password alone.
    private func signingDevice(_ context: AnswerContext) throws -> Device? {
        guard let device = try store.device(id: context.deviceID), device.userID == context.notification.userID, !device.isRevoked,
              device.boundBy.isConfirmed else { return nil }
        return device
    }

    /// Judges the device key's signature over the notification as sent.
    private func answerWithSignature(_ context: AnswerContext, device: Device, signature: String,
                                     challenge: StepUpChallenge) throws -> NotificationAnswer {
        guard let bytes = Data(base64URLEncoded: signature), bytes.count == 64 else {
            throw StepUpError.invalid("signature", "must be a 64-byte ES256 signature (r||s) in base64url")
        }
        let content = context.notification.signingContent(action: context.action.action)
        guard keys.verify(signature: Array(bytes), message: Array(content), key: try keys.parse(jwkJSON: device.publicKeyJWK)) else {
            // Altered content, or no device key behind the session: a failed factor, counted.
            return try failedProof(context, "The device signature does not cover this notification as sent.", challenge: challenge)
        }
        return try finish(context, achieved: .deviceSignature)
    }

    /// A proof that failed: one of the user's shared attempts (401 with `challenge` again, 153
    /// at the last).
    private func failedProof(_ context: AnswerContext, _ message: String, challenge: StepUpChallenge) throws -> NotificationAnswer {
        let userID = context.notification.userID
        let used = try identity.awaitAttempt(userID: userID, factor: .credentials)
        let outcome = try identity.concludeFailedAttempt(userID: userID, used: used, factor: .credentials)
        if outcome.status == .attemptsExhausted { return context.locked(until: outcome.lockedUntil) }
        return context.reply(.credentialsRejected, message, attemptsLeft: outcome.attemptsLeft, stepUp: challenge)
    }

    // MARK: Level 4: server biometric (workflow 9)

    private func answerWithSelfie(_ context: AnswerContext, transactionID: String?) throws -> NotificationAnswer {
        guard let idv else { throw StepUpError.biometricsUnavailable }
        let notification = context.notification
        let userID = notification.userID
        // A device the password alone bound must not spend the user's face attempts.
        guard let device = try store.device(id: context.deviceID), device.userID == userID, device.boundBy.isConfirmed else {
            throw IdentityError.deviceNotConfirmed
        }
        guard let transactionID else {
            let transaction = try idv.initiate(userID: userID, workflow: .notificationStepUp, reason: notification.subject, consent: nil)
            if let result = transaction.result {
                return context.reply(result.status, "There is no biometric template to match: enrol first.", attemptsLeft: result.attemptsLeft)
            }
            guard try store.setStepUpTransaction(notificationID: notification.id, transactionID: transaction.id) else {
                try requireOpen(try find(notification.id))
                throw StepUpError.closed("answered")
            }
            return context.reply(.stepUpRequired, "Take a selfie to answer.", stepUp: StepUpChallenge(
                authLevel: .serverBiometric, idvWorkflow: .stepUpBiometric, idvAuditTransactionID: transaction.id))
        }
        guard transactionID == notification.stepUpTransactionID else { throw StepUpError.stepUpMismatch }
        let transaction = try idv.ownTransaction(userID: userID, id: transactionID)
        guard transaction.workflow == .notificationStepUp else { throw StepUpError.stepUpMismatch }
        guard let result = transaction.result, transaction.state == .completed || transaction.state == .cancelled else {
            throw StepUpError.stepUpUnfinished
        }
        let attemptsLeft = try identity.attemptsLeft(userID: userID, factor: .biometric)
        if transaction.state == .cancelled {
            return context.reply(result.status, "The selfie was cancelled; the notification is still pending.", attemptsLeft: attemptsLeft)
        }
        guard result.status == .success, result.decision == .matched else {
            if result.status == .attemptsExhausted { return context.locked(until: result.lockedUntil) }
            if result.status != .success { return context.reply(result.status, "The selfie ended without a match.", attemptsLeft: attemptsLeft) }
            return context.reply(.credentialsRejected, "The selfie did not pass: \(result.decision?.rawValue ?? "no decision").",
                                 attemptsLeft: attemptsLeft)
        }
        return try finish(context)
    }

    // MARK: The end

    /// Closes the notification as answered at `achieved`, the level of what was proved (the
    /// action's own unless a stronger proof answered it).
    private func finish(_ context: AnswerContext, achieved: AuthLevel? = nil) throws -> NotificationAnswer {
        var answered = context.notification
        answered.status = .answered
        answered.chosenAction = context.action.action
        answered.achievedLevel = achieved ?? context.action.authLevel
        answered.answeredBy = context.deviceID
        guard let closed = try close(answered, numberMatched: context.numberMatched) else {
            let current = try find(answered.id)
            try requireOpen(current)
            throw StepUpError.closed(current.status.rawValue)
        }
        // "Not me" on a binding notice, signed by another bound device: the new device goes.
        if closed.apiKeyID == DeviceApprovalService.noticeSender, let unbound = DeviceApprovalService.unboundDevice(byAction: context.action.action) {
            try identity.revokeDevice(userID: closed.userID, deviceID: unbound, actor: "device:" + context.deviceID,
                                      reason: "the user said a binding was not theirs")
        }
        return NotificationAnswer(status: .success, message: "Answered: \(context.action.label).", notification: closed,
                                  action: context.action.action, attemptsLeft: nil, stepUp: nil)
    }

    /// Throws unless the notification can still be answered; one whose time ran out is closed
    /// as expired on the way.
    func requireOpen(_ notification: StepUpNotification) throws {
        switch notification.status {
        case .pending:
            guard clock.now() < notification.expiresAt else {
                _ = try expire(notification)
                throw StepUpError.expired
            }
        case .expired:
            throw StepUpError.expired
        default:
            throw StepUpError.closed(notification.status.rawValue)
        }
    }
}
