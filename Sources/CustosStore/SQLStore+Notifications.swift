import CustosAPI
import CustosCore
import Foundation

// MARK: - NotificationStore

extension SQLStore: NotificationStore {
    private static let notificationColumns = """
        id, user_id, api_key_id, subject, message, actions, details, number, callback_url, status,
        created_at, expires_at, chosen_action, achieved_level, answered_at, step_up_transaction_id, signed_result, ciba_ping, answered_by
        """

    public func createNotification(_ notification: StepUpNotification) throws {
        try database.execute(
            "INSERT INTO notifications (\(Self.notificationColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [.text(notification.id), .text(notification.userID), .text(notification.apiKeyID), .text(notification.subject),
             .text(notification.message), try .json(notification.actions), try notification.details.map { try .json($0) } ?? .null,
             notification.number.map { .integer(Int64($0)) } ?? .null,
             .optionalText(notification.callbackURL), .text(notification.status.rawValue), .date(notification.createdAt),
             .date(notification.expiresAt), .optionalText(notification.chosenAction),
             notification.achievedLevel.map { .integer(Int64($0.rawValue)) } ?? .null, .optionalDate(notification.answeredAt),
             .optionalText(notification.stepUpTransactionID), .optionalText(notification.signedResult),
             try notification.ping.map { try .json($0) } ?? .null, .optionalText(notification.answeredBy)])
    }

    public func notification(id: String) throws -> StepUpNotification? {
        try database.select("SELECT \(Self.notificationColumns) FROM notifications WHERE id = ?", [.text(id)])
            .first.map(Self.notification)
    }

    public func notifications(userID: String, open: Bool, now: Date, limit: Int) throws -> [StepUpNotification] {
        let condition = open ? "status = 'pending' AND expires_at > ?" : "(status <> 'pending' OR expires_at <= ?)"
        return try database.select(
            """
            SELECT \(Self.notificationColumns) FROM notifications
            WHERE user_id = ? AND \(condition) ORDER BY created_at DESC, id LIMIT ?
            """,
            [.text(userID), .date(now), .integer(Int64(max(0, limit)))]).map(Self.notification)
    }

    public func openNotificationCount(userID: String, now: Date) throws -> Int {
        // SQLite's single writer serializes creations already; PostgreSQL locks the user's row
        // until the transaction that counts and inserts commits.
        if database.dialect == .postgresql {
            _ = try database.query("SELECT id FROM users WHERE id = ? FOR UPDATE", [.text(userID)])
        }
        return try count("user_id", userID, now: now)
    }

    public func openNotificationCount(userID: String, apiKeyID: String, now: Date) throws -> Int {
        if database.dialect == .postgresql {
            _ = try database.query("SELECT id FROM users WHERE id = ? FOR UPDATE", [.text(userID)])
        }
        let rows = try database.select(
            "SELECT COUNT(*) FROM notifications WHERE user_id = ? AND api_key_id = ? AND status = 'pending' AND expires_at > ?",
            [.text(userID), .text(apiKeyID), .date(now)])
        return try rows.first?.int(0) ?? 0
    }

    public func openNotificationCount(apiKeyID: String, now: Date) throws -> Int {
        try count("api_key_id", apiKeyID, now: now)
    }

    private func count(_ column: String, _ value: String, now: Date) throws -> Int {
        let rows = try database.select(
            "SELECT COUNT(*) FROM notifications WHERE \(column) = ? AND status = 'pending' AND expires_at > ?",
            [.text(value), .date(now)])
        return try rows.first?.int(0) ?? 0
    }

    public func closeNotification(_ notification: StepUpNotification) throws -> Bool {
        try database.execute(
            """
            UPDATE notifications SET status = ?, chosen_action = ?, achieved_level = ?, answered_at = ?, signed_result = ?, answered_by = ?
            WHERE id = ? AND status = 'pending'
            """,
            [.text(notification.status.rawValue), .optionalText(notification.chosenAction),
             notification.achievedLevel.map { .integer(Int64($0.rawValue)) } ?? .null, .optionalDate(notification.answeredAt),
             .optionalText(notification.signedResult), .optionalText(notification.answeredBy), .text(notification.id)]) == 1
    }

    public func setStepUpTransaction(notificationID: String, transactionID: String) throws -> Bool {
        try database.execute("UPDATE notifications SET step_up_transaction_id = ? WHERE id = ? AND status = 'pending'",
                             [.text(transactionID), .text(notificationID)]) == 1
    }

    public func overdueNotifications(now: Date, limit: Int) throws -> [StepUpNotification] {
        try database.select(
            """
            SELECT \(Self.notificationColumns) FROM notifications
            WHERE status = 'pending' AND expires_at <= ? ORDER BY expires_at LIMIT ?
            """,
            [.date(now), .integer(Int64(max(0, limit)))]).map(Self.notification)
    }

    @discardableResult
    public func purgeClosedNotifications(before cutoff: Date, limit: Int) throws -> Int {
        // Security events sent (or given up on) that long ago go with them.
        _ = try database.execute(
            """
            DELETE FROM webhook_outbox WHERE id IN (
                SELECT id FROM webhook_outbox WHERE stream_id IS NOT NULL AND state <> 'pending' AND created_at < ? LIMIT ?)
            """,
            [.date(cutoff), .integer(Int64(max(0, limit)))])
        // Their outbox rows and CIBA requests go by cascade. Closed: answered (or failed, or
        // expired) before the cutoff; pending: expired before it (a pending one has no answer,
        // so the first condition is its expiry). Read by the notifications_closed_at index.
        return try database.execute(
            """
            DELETE FROM notifications WHERE id IN (
                SELECT id FROM notifications
                WHERE COALESCE(answered_at, expires_at) < ? AND (status <> 'pending' OR expires_at < ?)
                ORDER BY COALESCE(answered_at, expires_at) LIMIT ?)
            """,
            [.date(cutoff), .date(cutoff), .integer(Int64(max(0, limit)))])
    }

    private static func notification(_ row: SQLRow) throws -> StepUpNotification {
        let decoder = JSONDecoder()
        func json<T: Decodable>(_ type: T.Type, _ index: Int) throws -> T? {
            guard let text = try row.optionalString(index) else { return nil }
            do {
                return try decoder.decode(type, from: Data(text.utf8))
            } catch {
                throw StoreError.failure("notifications: unreadable JSON in column \(index)")
            }
        }
        return StepUpNotification(
            id: try row.string(0), userID: try row.string(1), apiKeyID: try row.string(2), subject: try row.string(3),
            message: try row.string(4), actions: try json([NotificationAction].self, 5) ?? [],
            details: try json(TransactionDetails.self, 6), number: row.isNull(7) ? nil : try row.int(7),
            callbackURL: try row.optionalString(8),
            status: NotificationStatus(rawValue: try row.string(9)), createdAt: try row.date(10), expiresAt: try row.date(11),
            chosenAction: try row.optionalString(12), achievedLevel: row.isNull(13) ? nil : AuthLevel(rawValue: try row.int(13)),
            answeredAt: try row.optionalDate(14), stepUpTransactionID: try row.optionalString(15), signedResult: try row.optionalString(16),
            ping: try json(CIBAPing.self, 17), answeredBy: try row.optionalString(18))
    }
}

// MARK: - WebhookOutboxStore

extension SQLStore: WebhookOutboxStore {
    private static let webhookColumns = """
        id, notification_id, api_key_id, url, body, auth_header, state, attempts, next_attempt_at, lease_owner, lease_until,
        last_status, last_error, created_at, delivered_at, stream_id, content_type
        """

    public func enqueueWebhook(_ delivery: WebhookDelivery) throws {
        try database.execute(
            "INSERT INTO webhook_outbox (\(Self.webhookColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [.text(delivery.id), .optionalText(delivery.notificationID), .text(delivery.apiKeyID), .text(delivery.url), .blob(delivery.body),
             .optionalText(delivery.authorization),
             .text(delivery.state.rawValue), .integer(Int64(delivery.attempts)), .date(delivery.nextAttemptAt),
             .optionalText(delivery.leaseOwner), .optionalDate(delivery.leaseUntil), delivery.lastStatus.map { .integer(Int64($0)) } ?? .null,
             .optionalText(delivery.lastError), .date(delivery.createdAt), .optionalDate(delivery.deliveredAt),
             .optionalText(delivery.streamID), .text(delivery.contentType)])
    }

    public func claimWebhooks(owner: String, now: Date, leaseUntil: Date, limit: Int, maximumAttempts: Int) throws -> [WebhookDelivery] {
        // The rows are chosen (and, on PostgreSQL, locked) once, in a materialized CTE, then
        // updated: a claim takes its batch and no more (`id IN (subquery … LIMIT)` is planned as
        // a semi-join that may run the subquery again per row, and took 199 rows for a batch of
        // 8). The outer condition repeats the inner one: a row another node leased meanwhile is
        // re-checked after its lock (PostgreSQL) and left alone. A row at its last attempt is
        // never claimed again (`failExhaustedWebhooks` ends it).
        let due = "state = 'pending' AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until <= ?) AND attempts < ?"
        let skipLocked = database.dialect == .postgresql ? " FOR UPDATE SKIP LOCKED" : ""
        let dueBinds: [SQLValue] = [.date(now), .date(now), .integer(Int64(max(0, maximumAttempts)))]
        return try database.query(
            """
            WITH claimed AS MATERIALIZED (
                SELECT id FROM webhook_outbox WHERE \(due) ORDER BY next_attempt_at LIMIT ?\(skipLocked)
            )
            UPDATE webhook_outbox SET lease_owner = ?, lease_until = ?, attempts = attempts + 1
            WHERE id IN (SELECT id FROM claimed) AND \(due)
            RETURNING \(Self.webhookColumns)
            """,
            dueBinds + [.integer(Int64(max(0, limit))), .text(owner), .date(leaseUntil)] + dueBinds
        ).map(Self.delivery)
    }

    public func deferWebhook(id: String, owner: String, until: Date) throws -> Bool {
        try database.execute(
            """
            UPDATE webhook_outbox SET lease_owner = NULL, lease_until = NULL, attempts = attempts - 1, next_attempt_at = ?
            WHERE id = ? AND lease_owner = ? AND state = 'pending'
            """, [.date(until), .text(id), .text(owner)]) == 1
    }

    @discardableResult
    public func failExhaustedWebhooks(now: Date, maximumAttempts: Int) throws -> Int {
        try database.execute(
            """
            UPDATE webhook_outbox SET state = 'failed', lease_owner = NULL, lease_until = NULL
            WHERE state = 'pending' AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until <= ?) AND attempts >= ?
            """, [.date(now), .date(now), .integer(Int64(max(0, maximumAttempts)))])
    }

    public func recordWebhookAttempt(_ delivery: WebhookDelivery, owner: String) throws -> Bool {
        try database.execute(
            """
            UPDATE webhook_outbox SET state = ?, attempts = ?, next_attempt_at = ?, last_status = ?, last_error = ?, delivered_at = ?,
                lease_owner = NULL, lease_until = NULL
            WHERE id = ? AND lease_owner = ?
            """,
            [.text(delivery.state.rawValue), .integer(Int64(delivery.attempts)), .date(delivery.nextAttemptAt),
             delivery.lastStatus.map { .integer(Int64($0)) } ?? .null, .optionalText(delivery.lastError), .optionalDate(delivery.deliveredAt),
             .text(delivery.id), .text(owner)]) == 1
    }

    public func webhookDelivery(notificationID: String) throws -> WebhookDelivery? {
        try database.select(
            "SELECT \(Self.webhookColumns) FROM webhook_outbox WHERE notification_id = ? ORDER BY created_at DESC LIMIT 1",
            [.text(notificationID)]).first.map(Self.delivery)
    }

    private static func delivery(_ row: SQLRow) throws -> WebhookDelivery {
        WebhookDelivery(
            id: try row.string(0), notificationID: try row.optionalString(1), streamID: try row.optionalString(15), apiKeyID: try row.string(2),
            url: try row.string(3), body: try row.data(4), contentType: try row.string(16), authorization: try row.optionalString(5),
            state: try row.enumValue(WebhookDelivery.State.self, 6, column: "webhook_outbox.state"),
            attempts: try row.int(7), nextAttemptAt: try row.date(8), leaseOwner: try row.optionalString(9),
            leaseUntil: try row.optionalDate(10), lastStatus: row.isNull(11) ? nil : try row.int(11), lastError: try row.optionalString(12),
            createdAt: try row.date(13), deliveredAt: try row.optionalDate(14))
    }
}
