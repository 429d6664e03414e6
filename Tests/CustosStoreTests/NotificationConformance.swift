import CustosAPI
import CustosCore
import CustosFakes
import Foundation
import Testing

@testable import CustosStore

/// Notifications, the webhook outbox and CIBA requests (migration 11), on every store.
extension ConformanceCheck {
    static func notification(_ id: String, user: String = "nia", key: String = "key-1", expiresIn seconds: TimeInterval = 300,
                             createdIn offset: TimeInterval = 0) -> StepUpNotification {
        StepUpNotification(
            id: id, userID: user, apiKeyID: key, subject: "Payment", message: "Pay 12.00 EUR?\nTo ACME.",
            actions: [NotificationAction(label: "Approve", action: "approve", authLevel: 1), NotificationAction(label: "Deny", action: "deny", authLevel: 0)],
            details: TransactionDetails(type: "payment", amount: "12.00", currency: "EUR", payee: "ACME"), number: 42,
            callbackURL: "https://rp.example/hook", status: .pending, createdAt: testNow.addingTimeInterval(offset),
            expiresAt: testNow.addingTimeInterval(offset + seconds),
            ping: CIBAPing(endpoint: "https://rp.example/ping", clientNotificationToken: "t", authReqID: "car_1"))
    }

    static func notificationLifecycle(_ store: any ConformingStore, _: any StoreNodes) throws {
        try store.createUser(user("nia"))
        try store.createUser(user("other"))
        let first = notification("n1")
        try store.createNotification(first)
        try store.createNotification(notification("n2", createdIn: 1))
        try store.createNotification(notification("n3", key: "key-2", expiresIn: 10, createdIn: 2))
        try store.createNotification(notification("o1", user: "other", createdIn: 3))
        expectStoreError(.duplicate) { try store.createNotification(first) }
        #expect(try store.notification(id: "n1") == first)
        #expect(try store.notification(id: "missing") == nil)

        #expect(try store.notifications(userID: "nia", open: true, now: testNow.addingTimeInterval(5), limit: 10).map(\.id) == ["n3", "n2", "n1"])
        #expect(try store.notifications(userID: "nia", open: true, now: testNow.addingTimeInterval(5), limit: 2).map(\.id) == ["n3", "n2"])
        // Past its expiry a pending notification is history.
        #expect(try store.notifications(userID: "nia", open: true, now: testNow.addingTimeInterval(12), limit: 10).map(\.id) == ["n2", "n1"])
        #expect(try store.notifications(userID: "nia", open: false, now: testNow.addingTimeInterval(12), limit: 10).map(\.id) == ["n3"])
        #expect(try store.openNotificationCount(userID: "nia", now: testNow.addingTimeInterval(5)) == 3)
        #expect(try store.openNotificationCount(apiKeyID: "key-1", now: testNow.addingTimeInterval(5)) == 3)
        #expect(try store.openNotificationCount(apiKeyID: "key-2", now: testNow.addingTimeInterval(12)) == 0)
        #expect(try store.overdueNotifications(now: testNow.addingTimeInterval(12), limit: 10).map(\.id) == ["n3"])

        // The step-up transaction is recorded only while pending; the close is a compare-and-set.
        #expect(try store.setStepUpTransaction(notificationID: "n1", transactionID: "tx-1"))
        var answered = first
        answered.status = .answered
        answered.chosenAction = "approve"
        answered.achievedLevel = 1
        answered.answeredAt = testNow.addingTimeInterval(7)
        answered.signedResult = "jws"
        #expect(try store.closeNotification(answered))
        var expired = first
        expired.status = .expired
        #expect(try !store.closeNotification(expired))
        #expect(try !store.setStepUpTransaction(notificationID: "n1", transactionID: "tx-2"))
        answered.stepUpTransactionID = "tx-1"
        #expect(try store.notification(id: "n1") == answered)
        #expect(try store.openNotificationCount(userID: "nia", now: testNow.addingTimeInterval(5)) == 2)

        // Retention: closed before the cutoff (answered n1 at +7 s; n3 expired at +12 s) goes,
        // with its outbox rows; what is still open stays.
        try store.enqueueWebhook(delivery("d0", notification: "n1"))
        #expect(try store.purgeClosedNotifications(before: testNow.addingTimeInterval(8), limit: 10) == 1)
        #expect(try store.notification(id: "n1") == nil && store.webhookDelivery(notificationID: "n1") == nil)
        #expect(try store.notification(id: "n2") != nil && store.notification(id: "n3") != nil)
        #expect(try store.purgeClosedNotifications(before: testNow.addingTimeInterval(13), limit: 10) == 1)
        #expect(try store.notification(id: "n3") == nil)
        try store.createNotification(first)

        // Deleting the user deletes its notifications, their outbox rows and CIBA requests.
        try store.enqueueWebhook(delivery("d1", notification: "n1"))
        try store.createCIBARequest(CIBARequest(digest: "ab", notificationID: "n1", clientID: "key-1", scope: "openid", interval: 5, createdAt: testNow))
        #expect(try store.deleteUser(id: "nia"))
        #expect(try store.notification(id: "n2") == nil && store.webhookDelivery(notificationID: "n1") == nil && store.cibaRequest(digest: "ab") == nil)
        #expect(try store.notification(id: "o1") != nil)
    }

    static func delivery(_ id: String, notification: String, dueIn seconds: TimeInterval = 0) -> WebhookDelivery {
        WebhookDelivery(id: id, notificationID: notification, apiKeyID: "key-1", url: "https://rp.example/hook", body: Data(#"{"a":1}"#.utf8),
                        authorization: id == "d2" ? "Bearer t" : nil, nextAttemptAt: testNow.addingTimeInterval(seconds), createdAt: testNow)
    }

    static func webhookOutboxLeases(_ store: any ConformingStore, _: any StoreNodes) throws {
        try store.createUser(user("nia"))
        try store.createNotification(notification("n1"))
        try store.enqueueWebhook(delivery("d1", notification: "n1"))
        try store.enqueueWebhook(delivery("d2", notification: "n1", dueIn: 1))
        try store.enqueueWebhook(delivery("d3", notification: "n1", dueIn: 60))
        expectStoreError(.duplicate) { try store.enqueueWebhook(delivery("d1", notification: "n1")) }

        // Due rows only, in order, each leased to one owner until the lease runs out.
        let now = testNow.addingTimeInterval(2)
        let claimed = try store.claimWebhooks(owner: "a", now: now, leaseUntil: now.addingTimeInterval(30), limit: 10)
        #expect(claimed.map(\.id) == ["d1", "d2"] && claimed.allSatisfy { $0.leaseOwner == "a" && $0.attempts == 1 })
        #expect(claimed[1].authorization == "Bearer t" && claimed[0].body == Data(#"{"a":1}"#.utf8))
        #expect(try store.claimWebhooks(owner: "b", now: now, leaseUntil: now.addingTimeInterval(30), limit: 10).isEmpty)

        // An attempt is recorded only by the lease's owner.
        var delivered = claimed[0]
        delivered.state = .delivered
        delivered.attempts = 1
        delivered.lastStatus = 200
        delivered.deliveredAt = now
        #expect(try !store.recordWebhookAttempt(delivered, owner: "b"))
        #expect(try store.recordWebhookAttempt(delivered, owner: "a"))
        // An owner that went away (killed during the POST): after its lease, another takes the
        // row, and both sends are counted.
        let later = now.addingTimeInterval(31)
        let retaken = try store.claimWebhooks(owner: "b", now: later, leaseUntil: later.addingTimeInterval(30), limit: 10)
        #expect(retaken.map(\.id) == ["d2"] && retaken[0].attempts == 2)
        var retry = retaken[0]
        retry.lastStatus = 500
        retry.lastError = "HTTP 500"
        retry.nextAttemptAt = later.addingTimeInterval(4)
        #expect(try store.recordWebhookAttempt(retry, owner: "b"))
        #expect(try !store.recordWebhookAttempt(retry, owner: "b"))
        #expect(try store.claimWebhooks(owner: "c", now: later, leaseUntil: later.addingTimeInterval(30), limit: 10).isEmpty)
        let due = try store.claimWebhooks(owner: "c", now: later.addingTimeInterval(4), leaseUntil: later.addingTimeInterval(34), limit: 1)
        #expect(due.map(\.id) == ["d2"] && due[0].attempts == 3 && due[0].lastError == "HTTP 500")
        #expect(try store.webhookDelivery(notificationID: "n1") != nil)
    }

    static func concurrentCloseHasOneWinner(_ harness: any StoreNodes) throws {
        let nodes = [try harness.node(), try harness.node()]
        defer { nodes.forEach { $0.close() } }
        try nodes[0].createUser(user("nia"))
        try nodes[0].createNotification(notification("contested"))
        let results = runConcurrently(20) { index in
            var answered = notification("contested")
            answered.status = .answered
            answered.chosenAction = index % 2 == 0 ? "approve" : "deny"
            return try nodes[index % nodes.count].closeNotification(answered)
        }
        let failures = results.filter { if case .failure = $0 { return true } else { return false } }
        #expect(failures.isEmpty, "errors: \(failures)")
        #expect(results.compactMap { try? $0.get() }.filter { $0 }.count == 1)
    }

    static func concurrentClaimsLeaseEachRowOnce(_ harness: any StoreNodes) throws {
        let nodes = [try harness.node(), try harness.node()]
        defer { nodes.forEach { $0.close() } }
        try nodes[0].createUser(user("nia"))
        try nodes[0].createNotification(notification("n1"))
        for index in 0..<30 { try nodes[0].enqueueWebhook(delivery(String(format: "d%02d", index), notification: "n1")) }
        let results = runConcurrently(10) { index in
            try nodes[index % nodes.count].claimWebhooks(owner: "owner-\(index)", now: testNow, leaseUntil: testNow.addingTimeInterval(30), limit: 4)
        }
        let failures = results.filter { if case .failure = $0 { return true } else { return false } }
        #expect(failures.isEmpty, "errors: \(failures)")
        let batches = results.compactMap { try? $0.get() }
        #expect(batches.allSatisfy { $0.count <= 4 }, "a claim took more than its batch: \(batches.map(\.count))")
        let claimed = batches.flatMap { $0 }.map(\.id)
        #expect(claimed.count == Set(claimed).count, "a row was leased twice: \(claimed.sorted())")
        #expect(claimed.count == 30)
    }

    /// A claim takes exactly its batch of many due rows, never a row at its last attempt; a
    /// delivery put back unattempted gives its attempt back; one whose attempts ran out while no
    /// lease held it is failed.
    static func webhookClaimBounds(_ store: any ConformingStore, _: any StoreNodes) throws {
        try store.createUser(user("nia"))
        try store.createNotification(notification("n1"))
        for index in 0..<60 { try store.enqueueWebhook(delivery(String(format: "d%02d", index), notification: "n1")) }
        let lease = testNow.addingTimeInterval(30)
        let first = try store.claimWebhooks(owner: "a", now: testNow, leaseUntil: lease, limit: 8, maximumAttempts: 2)
        #expect(first.count == 8 && first.allSatisfy { $0.attempts == 1 })
        #expect(try store.deferWebhook(id: first[0].id, owner: "a", until: testNow.addingTimeInterval(5)))
        #expect(try !store.deferWebhook(id: first[0].id, owner: "a", until: testNow.addingTimeInterval(5)))
        #expect(try !store.deferWebhook(id: first[1].id, owner: "b", until: testNow.addingTimeInterval(5)))
        // After the leases: the deferred row comes back at its time with its attempt given back;
        // the others have used 1 of 2.
        let later = lease.addingTimeInterval(1)
        let second = try store.claimWebhooks(owner: "b", now: later, leaseUntil: later.addingTimeInterval(30), limit: 100, maximumAttempts: 2)
        #expect(second.count == 60)
        #expect(second.first { $0.id == first[0].id }?.attempts == 1)
        #expect(second.filter { $0.attempts == 2 }.count == 7)
        // Those seven are at their last attempt; their sender dies: never claimed again, failed.
        let afterwards = later.addingTimeInterval(31)
        let third = try store.claimWebhooks(owner: "c", now: afterwards, leaseUntil: afterwards.addingTimeInterval(30), limit: 100, maximumAttempts: 2)
        #expect(third.count == 53)
        #expect(try store.failExhaustedWebhooks(now: afterwards, maximumAttempts: 2) == 7)
        #expect(try store.webhookDelivery(notificationID: "n1") != nil)
        #expect(try store.failExhaustedWebhooks(now: afterwards, maximumAttempts: 2) == 0)
    }

    static func cibaPollingAndIssue(_ store: any ConformingStore, _: any StoreNodes) throws {
        try store.createUser(user("nia"))
        try store.createNotification(notification("n1"))
        let request = CIBARequest(digest: "d1", notificationID: "n1", clientID: "key-1", scope: "openid", interval: 5, createdAt: testNow)
        try store.createCIBARequest(request)
        expectStoreError(.duplicate) { try store.createCIBARequest(request) }
        #expect(try store.cibaRequest(digest: "d1") == request)
        #expect(try store.recordCIBAPoll(digest: "d1", now: testNow))
        // Inside the interval: slow down, and the interval grows by 5 s.
        #expect(try !store.recordCIBAPoll(digest: "d1", now: testNow.addingTimeInterval(4)))
        #expect(try store.cibaRequest(digest: "d1")?.interval == 10)
        #expect(try !store.recordCIBAPoll(digest: "d1", now: testNow.addingTimeInterval(13)))
        #expect(try store.recordCIBAPoll(digest: "d1", now: testNow.addingTimeInterval(28)))
        #expect(try store.markCIBATokensIssued(digest: "d1"))
        #expect(try !store.markCIBATokensIssued(digest: "d1"))
        #expect(try store.cibaRequest(digest: "d1")?.tokensIssued == true)

        #expect(try store.cibaClient(id: "key-1") == nil)
        try store.saveCIBAClient(CIBAClient(clientID: "key-1", mode: .ping, notificationEndpoint: "https://rp.example/ping"), at: testNow)
        try store.saveCIBAClient(CIBAClient(clientID: "key-1", mode: .poll, notificationEndpoint: nil), at: testNow)
        #expect(try store.cibaClient(id: "key-1") == CIBAClient(clientID: "key-1", mode: .poll, notificationEndpoint: nil))
    }
}
