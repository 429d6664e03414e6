import CustosAPI
import Foundation

/// Notifications. The answer is a compare-and-set on the status, so of any number of devices
/// answering at once, on any number of nodes, exactly one wins.
public protocol NotificationStore: Sendable {
    func createNotification(_ notification: StepUpNotification) throws
    func notification(id: String) throws -> StepUpNotification?
    /// The user's notifications, newest first: the open ones (`pending` and unexpired at `now`)
    /// or, with `open: false`, every other one, at most `limit`.
    func notifications(userID: String, open: Bool, now: Date, limit: Int) throws -> [StepUpNotification]
    /// How many unexpired pending notifications the user has, and how many the API key sent.
    /// Inside `atomically`, the user's count is taken under a lock on the user, so concurrent
    /// creations on any node see each other's rows (the pending limit holds).
    func openNotificationCount(userID: String, now: Date) throws -> Int
    func openNotificationCount(apiKeyID: String, now: Date) throws -> Int
    /// The user's pending notifications sent with one key; on PostgreSQL it locks the user's row
    /// until the transaction ends (count and insert are one step).
    func openNotificationCount(userID: String, apiKeyID: String, now: Date) throws -> Int
    /// Stores `notification`'s final state while the stored one is still `pending`; false when
    /// another answer, or the expiry, came first.
    func closeNotification(_ notification: StepUpNotification) throws -> Bool
    /// Records the workflow 9 transaction started for a pending notification; false when it is
    /// no longer pending.
    func setStepUpTransaction(notificationID: String, transactionID: String) throws -> Bool
    /// Pending notifications whose time ran out by `now` (housekeeping closes them).
    func overdueNotifications(now: Date, limit: Int) throws -> [StepUpNotification]
    /// Deletes notifications closed (answered, failed, or expired) before `cutoff`, with their
    /// webhook deliveries and CIBA requests, at most `limit`; returns how many.
    @discardableResult
    func purgeClosedNotifications(before cutoff: Date, limit: Int) throws -> Int
}

/// The webhook outbox.
public protocol WebhookOutboxStore: Sendable {
    func enqueueWebhook(_ delivery: WebhookDelivery) throws
    /// Leases up to `limit` pending deliveries that are due at `now` and not leased by a live
    /// lease to `owner` until `leaseUntil`; a row is leased to one owner at a time. The claim
    /// counts the attempt (`attempts` + 1) before anything is sent, so an attempt whose sender
    /// died mid-POST is counted too.
    /// The claim takes exactly its batch (at most `limit` rows), and never a row whose
    /// `attempts` reached `maximumAttempts`.
    func claimWebhooks(owner: String, now: Date, leaseUntil: Date, limit: Int, maximumAttempts: Int) throws -> [WebhookDelivery]
    /// Gives back a claimed delivery without sending it (its receiver is busy or its circuit
    /// open): the lease ends, the attempt the claim counted is taken off, and it is due again at
    /// `until`. False when `owner` no longer leases it.
    func deferWebhook(id: String, owner: String, until: Date) throws -> Bool
    /// Fails the pending deliveries whose attempts ran out while no live lease holds them (a
    /// sender killed during the last attempt); returns how many.
    @discardableResult
    func failExhaustedWebhooks(now: Date, maximumAttempts: Int) throws -> Int
    /// Records an attempt of a delivery `owner` still leases: delivered, retried at
    /// `nextAttemptAt`, or failed for good (`state`). False when the lease was lost.
    func recordWebhookAttempt(_ delivery: WebhookDelivery, owner: String) throws -> Bool
    /// The latest delivery of a notification's result.
    func webhookDelivery(notificationID: String) throws -> WebhookDelivery?
}

extension WebhookOutboxStore {
    /// A claim with no bound on the attempts.
    public func claimWebhooks(owner: String, now: Date, leaseUntil: Date, limit: Int) throws -> [WebhookDelivery] {
        try claimWebhooks(owner: owner, now: now, leaseUntil: leaseUntil, limit: limit, maximumAttempts: .max)
    }
}
