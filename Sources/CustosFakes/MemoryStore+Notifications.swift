import CustosCore
import Foundation

// MARK: - NotificationStore

extension MemoryStore: NotificationStore {
    public func createNotification(_ notification: StepUpNotification) throws {
        var notification = notification
        notification.createdAt = storedDate(notification.createdAt)
        notification.expiresAt = storedDate(notification.expiresAt)
        notification.answeredAt = notification.answeredAt.map(storedDate)
        try write { state in
            try state.requireUser(notification.userID)
            guard state.notifications[notification.id] == nil else { throw StoreError.duplicate("a notification with this id already exists") }
            state.notifications[notification.id] = notification
        }
    }

    public func notification(id: String) throws -> StepUpNotification? {
        try read { $0.notifications[id] }
    }

    public func notifications(userID: String, open: Bool, now: Date, limit: Int) throws -> [StepUpNotification] {
        let now = storedDate(now)
        return try read { state in
            let mine = state.notifications.values.filter { $0.userID == userID && ($0.status == .pending && $0.expiresAt > now) == open }
            return Array(mine.sorted { ($0.createdAt, $1.id) > ($1.createdAt, $0.id) }.prefix(max(0, limit)))
        }
    }

    public func openNotificationCount(userID: String, now: Date) throws -> Int {
        try read { state in state.notifications.values.filter { $0.userID == userID && $0.status == .pending && $0.expiresAt > storedDate(now) }.count }
    }

    public func openNotificationCount(userID: String, apiKeyID: String, now: Date) throws -> Int {
        try read { state in
            state.notifications.values.filter {
                $0.userID == userID && $0.apiKeyID == apiKeyID && $0.status == .pending && $0.expiresAt > storedDate(now)
            }.count
        }
    }

    public func openNotificationCount(apiKeyID: String, now: Date) throws -> Int {
        try read { state in
            state.notifications.values.filter { $0.apiKeyID == apiKeyID && $0.status == .pending && $0.expiresAt > storedDate(now) }.count
        }
    }

    public func closeNotification(_ notification: StepUpNotification) throws -> Bool {
        try write { state in
            guard var stored = state.notifications[notification.id], stored.status == .pending else { return false }
            stored.status = notification.status
            stored.chosenAction = notification.chosenAction
            stored.achievedLevel = notification.achievedLevel
            stored.answeredAt = notification.answeredAt.map(storedDate)
            stored.signedResult = notification.signedResult
            state.notifications[notification.id] = stored
            return true
        }
    }

    public func setStepUpTransaction(notificationID: String, transactionID: String) throws -> Bool {
        try write { state in
            guard state.notifications[notificationID]?.status == .pending else { return false }
            state.notifications[notificationID]?.stepUpTransactionID = transactionID
            return true
        }
    }

    public func overdueNotifications(now: Date, limit: Int) throws -> [StepUpNotification] {
        try read { state in
            Array(state.notifications.values.filter { $0.status == .pending && $0.expiresAt <= storedDate(now) }
                .sorted { $0.expiresAt < $1.expiresAt }.prefix(max(0, limit)))
        }
    }
}

extension MemoryStore {
    @discardableResult
    public func purgeClosedNotifications(before cutoff: Date, limit: Int) throws -> Int {
        let cutoff = storedDate(cutoff)
        return try write { state in
            let old = state.notifications.values.filter { ($0.status == .pending ? $0.expiresAt : $0.answeredAt ?? $0.expiresAt) < cutoff }
                .sorted { $0.expiresAt < $1.expiresAt }.prefix(max(0, limit)).map(\.id)
            for id in old { state.notifications[id] = nil }
            let notifications = state.notifications
            _ = state.webhooks.removeAll { notifications[$0.value.notificationID ?? ""] == nil }
            _ = state.cibaRequests.removeAll { notifications[$0.value.notificationID] == nil }
            return old.count
        }
    }
}

// MARK: - WebhookOutboxStore

extension MemoryStore: WebhookOutboxStore {
    public func enqueueWebhook(_ delivery: WebhookDelivery) throws {
        var delivery = delivery
        delivery.nextAttemptAt = storedDate(delivery.nextAttemptAt)
        delivery.createdAt = storedDate(delivery.createdAt)
        try write { state in
            guard let notificationID = delivery.notificationID, state.notifications[notificationID] != nil else {
                throw MemoryState.missing("notification")
            }
            guard state.webhooks[delivery.id] == nil else { throw StoreError.duplicate("a webhook delivery with this id already exists") }
            state.webhooks[delivery.id] = delivery
        }
    }

    public func claimWebhooks(owner: String, now: Date, leaseUntil: Date, limit: Int, maximumAttempts: Int) throws -> [WebhookDelivery] {
        let now = storedDate(now)
        return try write { state in
            let due = state.webhooks.values.filter { Self.isDue($0, now: now) && $0.attempts < maximumAttempts }
                .sorted { $0.nextAttemptAt < $1.nextAttemptAt }.prefix(max(0, limit))
            return due.map { delivery in
                var leased = delivery
                leased.leaseOwner = owner
                leased.leaseUntil = storedDate(leaseUntil)
                leased.attempts += 1
                state.webhooks[delivery.id] = leased
                return leased
            }
        }
    }

    public func deferWebhook(id: String, owner: String, until: Date) throws -> Bool {
        try write { state in
            guard var delivery = state.webhooks[id], delivery.leaseOwner == owner, delivery.state == .pending else { return false }
            delivery.leaseOwner = nil
            delivery.leaseUntil = nil
            delivery.attempts -= 1
            delivery.nextAttemptAt = storedDate(until)
            state.webhooks[id] = delivery
            return true
        }
    }

    @discardableResult
    public func failExhaustedWebhooks(now: Date, maximumAttempts: Int) throws -> Int {
        let now = storedDate(now)
        return try write { state in
            let exhausted = state.webhooks.values.filter { Self.isDue($0, now: now) && $0.attempts >= maximumAttempts }.map(\.id)
            for id in exhausted {
                state.webhooks[id]?.state = .failed
                state.webhooks[id]?.leaseOwner = nil
                state.webhooks[id]?.leaseUntil = nil
            }
            return exhausted.count
        }
    }

    private static func isDue(_ delivery: WebhookDelivery, now: Date) -> Bool {
        delivery.state == .pending && delivery.nextAttemptAt <= now && (delivery.leaseUntil.map { $0 <= now } ?? true)
    }

    public func recordWebhookAttempt(_ delivery: WebhookDelivery, owner: String) throws -> Bool {
        try write { state in
            guard state.webhooks[delivery.id]?.leaseOwner == owner else { return false }
            var recorded = delivery
            recorded.nextAttemptAt = storedDate(delivery.nextAttemptAt)
            recorded.deliveredAt = delivery.deliveredAt.map(storedDate)
            recorded.leaseOwner = nil
            recorded.leaseUntil = nil
            state.webhooks[delivery.id] = recorded
            return true
        }
    }

    public func webhookDelivery(notificationID: String) throws -> WebhookDelivery? {
        try read { state in state.webhooks.values.filter { $0.notificationID == notificationID }.max { $0.createdAt < $1.createdAt } }
    }
}

// MARK: - CIBAStore

extension MemoryStore: CIBAStore {
    public func createCIBARequest(_ request: CIBARequest) throws {
        var request = request
        request.createdAt = storedDate(request.createdAt)
        try write { state in
            guard state.notifications[request.notificationID] != nil else { throw MemoryState.missing("notification") }
            guard state.cibaRequests[request.digest] == nil else { throw StoreError.duplicate("a CIBA request with this id already exists") }
            state.cibaRequests[request.digest] = request
        }
    }

    public func cibaRequest(digest: String) throws -> CIBARequest? {
        try read { $0.cibaRequests[digest] }
    }

    public func revokeCIBATokens(digest: String, at: Date) throws -> Bool {
        try write { state in
            guard let request = state.cibaRequests[digest], request.revokedAt == nil else { return false }
            state.cibaRequests[digest]?.revokedAt = storedDate(at)
            return true
        }
    }

    public func recordCIBAPoll(digest: String, now: Date) throws -> Bool {
        let now = storedDate(now)
        return try write { state in
            guard var request = state.cibaRequests[digest] else { return false }
            defer { state.cibaRequests[digest] = request }
            let allowed = request.lastPolledAt.map { $0.addingTimeInterval(TimeInterval(request.interval)) <= now } ?? true
            request.lastPolledAt = now
            if !allowed { request.interval += 5 }
            return allowed
        }
    }

    public func markCIBATokensIssued(digest: String) throws -> Bool {
        try write { state in
            guard state.cibaRequests[digest]?.tokensIssued == false else { return false }
            state.cibaRequests[digest]?.tokensIssued = true
            return true
        }
    }

    public func saveCIBAClient(_ client: CIBAClient, at: Date) throws {
        try write { $0.cibaClients[client.clientID] = client }
    }

    public func cibaClient(id: String) throws -> CIBAClient? {
        try read { $0.cibaClients[id] }
    }
}
