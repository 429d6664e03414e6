import CustosAPI
import Foundation

/// What a relying party asks for when it creates a notification.
public struct NotificationDraft: Sendable, Equatable {
    public var userID: String
    public var subject: String
    public var message: String
    public var actions: [NotificationAction]
    public var details: TransactionDetails?
    /// Nil: the policy's default.
    public var lifetime: TimeInterval?
    public var numberMatching: Bool
    public var callbackURL: String?
    /// A CIBA request's ping (set by `CIBAService`).
    public var ping: CIBAPing?

    public init(userID: String, subject: String, message: String, actions: [NotificationAction], details: TransactionDetails? = nil,
                lifetime: TimeInterval? = nil, numberMatching: Bool = false, callbackURL: String? = nil, ping: CIBAPing? = nil) {
        self.ping = ping
        self.userID = userID
        self.subject = subject
        self.message = message
        self.actions = actions
        self.details = details
        self.lifetime = lifetime
        self.numberMatching = numberMatching
        self.callbackURL = callbackURL
    }
}

/// Step-up approvals (seed 002): a relying party's notification with actions of their own auth
/// levels; the user's answer with the proof its level demands (password, bound-device
/// signature, server biometric workflow 9); a signed result, stored, readable by API key and
/// delivered by webhook through an outbox written in the same transaction.
///
/// Synchronous and thread-safe; the answer is a compare-and-set in the store, so exactly one of
/// any number of concurrent answers wins.
public final class NotificationService: Sendable {
    public typealias Storage = NotificationStore & WebhookOutboxStore & DeviceStore & AtomicStore

    let store: any Storage
    let identity: IdentityService
    let idv: IDVService?
    /// Level 1 by passkey, where the server takes passkeys.
    let passkeys: PasskeyService?
    let keys: any DeviceKeyVerifier
    let digester: any SecretDigester
    let random: any RandomSource
    let clock: any Clock
    let signer: (any TokenSigner)?
    let audit: AuditTrail
    let callbacks: any CallbackURLValidator
    public let policy: NotificationPolicy
    /// Rung when a final state's webhook or ping is in the outbox.
    public let outboxBell: OutboxBell

    /// The `typ` of a step-up result's JWS.
    public static let resultType = "custos-step-up+jwt"

    public init(store: any Storage, identity: IdentityService, idv: IDVService?, keys: any DeviceKeyVerifier, digester: any SecretDigester,
                random: any RandomSource, clock: any Clock, signer: (any TokenSigner)?, audit: AuditTrail,
                callbacks: any CallbackURLValidator, policy: NotificationPolicy, outboxBell: OutboxBell = OutboxBell(),
                passkeys: PasskeyService? = nil) {
        self.outboxBell = outboxBell
        self.passkeys = passkeys
        self.store = store
        self.identity = identity
        self.idv = idv
        self.keys = keys
        self.digester = digester
        self.random = random
        self.clock = clock
        self.signer = signer
        self.audit = audit
        self.callbacks = callbacks
        self.policy = policy
    }

    // MARK: The relying party

    /// Creates a notification for an existing user; refused when the key already has as many
    /// pending for the user, or in all, as the policy allows (push fatigue).
    public func create(_ draft: NotificationDraft, apiKeyID: String) throws -> StepUpNotification {
        try create(draft, sender: apiKeyID, limitedPerSender: true)
    }

    /// Creates a notification the server itself sends (`sender`: not an API key, e.g.
    /// `DeviceApprovalService.approvalSender`), limited per user like any sender's but not in all.
    func create(_ draft: NotificationDraft, sender apiKeyID: String, limitedPerSender: Bool) throws -> StepUpNotification {
        try NotificationRules.check(draft, policy: policy, biometricsAvailable: idv != nil)
        _ = try identity.user(id: draft.userID)
        if let url = draft.callbackURL { try callbacks.validate(url) }
        if let ping = draft.ping { try callbacks.validate(ping.endpoint) }
        let now = clock.now()
        let number = draft.numberMatching ? 10 + random.uniform(below: 90) : nil
        let notification = StepUpNotification(
            id: random.hexID(bytes: 16), userID: draft.userID, apiKeyID: apiKeyID, subject: draft.subject, message: draft.message,
            actions: draft.actions, details: draft.details, number: number, callbackURL: draft.callbackURL,
            status: .pending, createdAt: now, expiresAt: now.addingTimeInterval(draft.lifetime ?? policy.defaultLifetime), ping: draft.ping)
        try store.atomically {
            // Counted per sender: one relying party cannot fill the user's slots for all.
            guard try store.openNotificationCount(userID: draft.userID, apiKeyID: apiKeyID, now: now) < policy.maximumPendingPerUser else {
                throw StepUpError.tooMany("for this user from this API key")
            }
            guard try !limitedPerSender || store.openNotificationCount(apiKeyID: apiKeyID, now: now) < policy.maximumPendingPerKey else {
                throw StepUpError.tooMany("from this API key")
            }
            try store.createNotification(notification)
            var details = ["actions": notification.actions.map { "\($0.action):\($0.authLevel.rawValue)" }.joined(separator: ","),
                           "api_key_id": apiKeyID, AuditActor.detail: apiKeyID, "number_matching": draft.numberMatching ? "true" : "false"]
            if let type = draft.details?.type { details["details_type"] = type }
            try audit.record(.notificationCreated, userID: draft.userID, transactionID: notification.id, details: details)
        }
        return notification
    }

    /// A notification as the relying party that sent it reads it (or an administrator): any
    /// other key gets not found, as for a notification that does not exist.
    public func result(id: String, readBy key: APIKey) throws -> (StepUpNotification, WebhookDelivery?) {
        let (notification, delivery) = try result(id: id)
        guard key.scope == .admin || notification.apiKeyID == key.id else { throw StepUpError.notFound }
        return (notification, delivery)
    }

    /// A notification with its webhook's delivery, whoever sent it.
    public func result(id: String) throws -> (StepUpNotification, WebhookDelivery?) {
        var notification = try find(id)
        if notification.status == .pending, clock.now() >= notification.expiresAt {
            notification = try expire(notification) ?? find(id)
        }
        return (notification, try store.webhookDelivery(notificationID: notification.id))
    }

    // MARK: The user

    /// The user's open notifications (newest first), or the answered, expired and failed ones.
    public func notifications(userID: String, open: Bool, limit: Int = 100) throws -> [StepUpNotification] {
        try store.notifications(userID: userID, open: open, now: clock.now(), limit: limit)
    }

    /// Closes pending notifications whose time ran out (housekeeping), each with its webhook.
    @discardableResult
    public func expireOverdue(batch: Int = 100) throws -> Int {
        var closed = 0
        for overdue in try store.overdueNotifications(now: clock.now(), limit: batch) where try expire(overdue) != nil {
            closed += 1
        }
        return closed
    }

    /// Deletes notifications closed more than `policy.retention` ago, with their webhook
    /// deliveries and CIBA requests (housekeeping); their audit events stay.
    @discardableResult
    public func purgeOld(batch: Int = 500) throws -> Int {
        try store.purgeClosedNotifications(before: clock.now().addingTimeInterval(-policy.retention), limit: batch)
    }

    // MARK: Shared

    func find(_ id: String) throws -> StepUpNotification {
        guard id.utf8.count == 32, id.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }),
              let notification = try store.notification(id: id) else { throw StepUpError.notFound }
        return notification
    }

    func expire(_ notification: StepUpNotification) throws -> StepUpNotification? {
        var expired = notification
        expired.status = .expired
        return try close(expired, numberMatched: nil)
    }

    /// Stores the final state (while the notification is still pending), signed, with its audit
    /// event and its webhook, in one transaction; nil when another answer came first.
    func close(_ final: StepUpNotification, numberMatched: Bool?) throws -> StepUpNotification? {
        var closed = final
        let now = clock.now()
        if closed.status != .expired { closed.answeredAt = now }
        closed.signedResult = try sign(closed, numberMatched: numberMatched, now: now)
        let stored = try store.atomically { () -> StepUpNotification? in
            guard try store.closeNotification(closed) else { return nil }
            var details = ["status": closed.status.rawValue]
            if let action = closed.chosenAction { details["action"] = action }
            if let level = closed.achievedLevel { details["auth_level"] = String(level.rawValue) }
            if let numberMatched { details["number_matched"] = numberMatched ? "true" : "false" }
            try audit.record(.notificationClosed, userID: closed.userID, transactionID: closed.id, details: details)
            if let url = closed.callbackURL {
                let deliveryID = random.hexID(bytes: 16)
                let event = WebhookEvent(deliveryID: deliveryID, event: "notification.\(closed.status.rawValue)",
                                         result: wireResult(closed, delivery: nil))
                try store.enqueueWebhook(WebhookDelivery(id: deliveryID, notificationID: closed.id, apiKeyID: closed.apiKeyID, url: url,
                                                         body: try WireJSON.encoder().encode(event), nextAttemptAt: now, createdAt: now))
            }
            if let ping = closed.ping {
                let body = try JSONSerialization.data(withJSONObject: ["auth_req_id": ping.authReqID], options: [.sortedKeys])
                try store.enqueueWebhook(WebhookDelivery(id: random.hexID(bytes: 16), notificationID: closed.id, apiKeyID: closed.apiKeyID,
                                                         url: ping.endpoint, body: body, authorization: "Bearer " + ping.clientNotificationToken,
                                                         nextAttemptAt: now, createdAt: now))
            }
            return closed
        }
        if stored?.callbackURL != nil || stored?.ping != nil { outboxBell.ring() }
        return stored
    }

    /// The JWS over the final state (nil without a key ring).
    private func sign(_ notification: StepUpNotification, numberMatched: Bool?, now: Date) throws -> String? {
        guard let signer else { return nil }
        let claims = StepUpResultClaims(
            iss: policy.issuer, sub: notification.userID, aud: notification.apiKeyID, iat: Int(now.timeIntervalSince1970),
            exp: Int(now.addingTimeInterval(policy.resultLifetime).timeIntervalSince1970), jti: random.hexID(bytes: 16), notificationUUID: notification.id,
            status: notification.status, action: notification.chosenAction, authLevel: notification.achievedLevel,
            amr: notification.achievedLevel.map { Assurance.of($0).amr }, answeredAt: notification.answeredAt.map { Int($0.timeIntervalSince1970) },
            detailsSHA256: detailsHash(notification), numberMatched: numberMatched)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try signer.sign(payload: try encoder.encode(claims), type: Self.resultType, now: now)
    }

    func detailsHash(_ notification: StepUpNotification) -> String? {
        notification.details.map { digester.digest(bytes: StepUpContent.detailsBytes($0)).base64URLEncodedString }
    }

    /// The relying party's view.
    public func wireResult(_ notification: StepUpNotification, delivery: WebhookDelivery?) -> NotificationResult {
        NotificationResult(
            notificationUUID: notification.id, userID: notification.userID, status: notification.status, action: notification.chosenAction,
            authLevel: notification.achievedLevel, amr: notification.achievedLevel.map { Assurance.of($0).amr }, answeredAt: notification.answeredAt,
            expiresAt: notification.expiresAt, detailsSHA256: detailsHash(notification), signedResult: notification.signedResult,
            delivery: delivery.map {
                WebhookDeliveryInfo(deliveryID: $0.id, state: $0.state.rawValue, attempts: $0.attempts, lastStatus: $0.lastStatus,
                                    lastError: $0.lastError, nextAttemptAt: $0.state == .pending ? $0.nextAttemptAt : nil,
                                    deliveredAt: $0.deliveredAt)
            })
    }
}
