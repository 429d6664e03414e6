import CustosAPI
import CustosConfiguration
import CustosCore
import CustosCrypto
import CustosCryptoServices
import CustosHTTP
import CustosRuntime
import CustosSDK
import CustosServer
import CustosStore
import CustosTestSupport
import Foundation
import Testing

/// The webhook outbox end to end: a receiver on a loopback port, retries, signatures, leases.
@Suite struct WebhookDeliveryTests {
    static func fast(_ configuration: inout ServerConfiguration) {
        configuration.notifications.webhookBackoff = 0.05
        configuration.webhooks.pollInterval = 0.05
        configuration.webhooks.totalTimeout = 3
    }

    /// The receiver's check of a delivery: the HMAC over "<t>.<body>" with the key's secret.
    static func verifies(_ received: WebhookReceiver.Received, secret: String) -> Bool {
        let fields = Dictionary(uniqueKeysWithValues: received.signature.split(separator: ",").compactMap { part -> (String, String)? in
            let pair = part.split(separator: "=", maxSplits: 1)
            return pair.count == 2 ? (String(pair[0]), String(pair[1])) : nil
        })
        guard let timestamp = fields["t"], let given = fields["v1"], abs((Int(timestamp) ?? 0) - Int(Date().timeIntervalSince1970)) < 300 else {
            return false
        }
        let expected = HMACSHA256.authenticate(key: Data(secret.utf8), message: Data("\(timestamp).".utf8) + received.body)
        return ConstantTime.equals(Array(expected), Array(Hex.decode(given) ?? []))
    }

    @Test(arguments: StoreKind.available)
    func aResultIsDeliveredOncePerIdAfterTwoFailures(kind: StoreKind) async throws {
        let receiver = try WebhookReceiver(answer: { $0 <= 2 ? 500 : 200 })
        defer { receiver.stop() }
        let fixture = try await StepUpFixture.make(kind, webhooks: true, configure: Self.fast)
        defer { fixture.live.stop() }
        let created = try await fixture.send(level: 0, callback: receiver.url)
        _ = try await fixture.client.updateNotification(try await fixture.shown(created.notificationUUID), action: "approve")

        #expect(await receiver.wait { $0.count >= 3 })
        try await Task.sleep(for: .milliseconds(300))
        let requests = receiver.requests
        #expect(requests.map(\.status) == [500, 500, 200])
        #expect(Set(requests.map(\.deliveryID)).count == 1 && receiver.processed.count == 1)
        let secret = try await fixture.rp.webhookSecret()
        #expect(requests.allSatisfy { Self.verifies($0, secret: secret.secret) })
        #expect(!Self.verifies(requests[0], secret: secret.secret + "x"))

        let event = try WireJSON.decoder().decode(WebhookEvent.self, from: requests[2].body)
        #expect(event.event == "notification.answered" && event.deliveryID == requests[2].deliveryID)
        #expect(event.result.action == "approve" && event.result.signedResult != nil && event.result.notificationUUID == created.notificationUUID)

        let result = try await fixture.rp.notificationResult(created.notificationUUID)
        let delivery = try #require(result.delivery)
        #expect(delivery.state == "delivered" && delivery.attempts == 3 && delivery.lastStatus == 200 && delivery.deliveryID == event.deliveryID)
    }

    /// A receiver named by an IPv6 address literal is delivered to (curl's resolve list, which
    /// pins host names, cannot hold one: it is not used for a literal).
    @Test func aReceiverAtAnIPv6LiteralIsDeliveredTo() async throws {
        let receiver = try WebhookReceiver(host: "::1")
        defer { receiver.stop() }
        #expect(receiver.url.hasPrefix("http://[::1]:"))
        let fixture = try await StepUpFixture.make(.sqlite, webhooks: true, configure: Self.fast)
        defer { fixture.live.stop() }
        let created = try await fixture.send(level: 0, callback: receiver.url)
        _ = try await fixture.client.updateNotification(try await fixture.shown(created.notificationUUID), action: "approve")
        #expect(await receiver.wait { $0.count >= 1 })
        try await Task.sleep(for: .milliseconds(300))
        let delivery = try await fixture.rp.notificationResult(created.notificationUUID).delivery
        #expect(delivery?.state == "delivered" && delivery?.lastStatus == 200, "\(String(describing: delivery))")
    }

    @Test func retriesRunOutAndExpiryIsDeliveredToo() async throws {
        let receiver = try WebhookReceiver(answer: { _ in 503 })
        defer { receiver.stop() }
        let fixture = try await StepUpFixture.make(.sqlite, webhooks: true) {
            Self.fast(&$0)
            $0.notifications.webhookMaximumAttempts = 2
        }
        defer { fixture.live.stop() }
        let created = try await fixture.send(level: 0, callback: receiver.url, expiresIn: 10)
        fixture.live.clock.advance(by: 11)
        #expect(try fixture.live.notifications.expireOverdue() == 1)
        #expect(await receiver.wait { $0.count >= 2 })
        try await Task.sleep(for: .milliseconds(300))
        #expect(receiver.requests.count == 2)
        let result = try await fixture.rp.notificationResult(created.notificationUUID)
        #expect(result.status == .expired && result.delivery?.state == "failed" && result.delivery?.lastStatus == 503)
        let event = try WireJSON.decoder().decode(WebhookEvent.self, from: receiver.requests[0].body)
        #expect(event.event == "notification.expired")
    }

    /// A receiver's redirect is not followed (it could point anywhere): a failed attempt, retried.
    @Test func redirectsAreNotFollowed() async throws {
        let elsewhere = try WebhookReceiver()
        defer { elsewhere.stop() }
        let redirecting = try WebhookReceiver(answer: { _ in 307 }, location: elsewhere.url)
        defer { redirecting.stop() }
        let fixture = try await StepUpFixture.make(.sqlite, webhooks: true) {
            Self.fast(&$0)
            $0.notifications.webhookMaximumAttempts = 2
        }
        defer { fixture.live.stop() }
        let redirected = try await fixture.send(level: 0, callback: redirecting.url)
        _ = try await fixture.client.updateNotification(try await fixture.shown(redirected.notificationUUID), action: "approve")
        #expect(await redirecting.wait { $0.count >= 2 })
        try await Task.sleep(for: .milliseconds(300))
        #expect(elsewhere.requests.isEmpty)
        let failed = try await fixture.rp.notificationResult(redirected.notificationUUID).delivery
        #expect(failed?.state == "failed" && failed?.lastStatus == 307 && failed?.attempts == 2, "\(String(describing: failed))")
    }

    /// A receiver that answers after the timeout has not answered: a failed attempt, retried.
    @Test func slowReceiversTimeOutAndAreRetried() async throws {
        let slow = try WebhookReceiver(delay: { $0 == 1 ? 6 : 0 })
        defer { slow.stop() }
        let fixture = try await StepUpFixture.make(.sqlite, webhooks: true) {
            Self.fast(&$0)
            $0.webhooks.totalTimeout = 2
            $0.webhooks.connectTimeout = 2
        }
        defer { fixture.live.stop() }
        let slowed = try await fixture.send(level: 0, callback: slow.url)
        _ = try await fixture.client.updateNotification(try await fixture.shown(slowed.notificationUUID), action: "approve")
        #expect(await slow.wait { $0.count >= 2 })
        try await Task.sleep(for: .milliseconds(300))
        let delivery = try await fixture.rp.notificationResult(slowed.notificationUUID).delivery
        // At least the slow attempt and the one that succeeded (a loaded machine may time out more).
        #expect(delivery?.state == "delivered" && (delivery?.attempts ?? 0) >= 2, "\(String(describing: delivery))")
        #expect(Set(slow.requests.map(\.deliveryID)).count == 1 && slow.processed.count == 1)
    }

    @Test func callbacksIntoTheOperatorsNetworkAreRefused() async throws {
        let fixture = try await StepUpFixture.make(.sqlite) { $0.webhooks.allowsLoopbackHTTP = false }
        defer { fixture.live.stop() }
        for url in ["https://10.0.0.5/hook", "https://192.168.1.1/hook", "https://169.254.169.254/latest/meta-data",
                    "https://[fe80::1]/hook", "https://[::ffff:10.0.0.1]/hook", "https://127.0.0.1/hook", "http://127.0.0.1:9/hook",
                    "https://user:secret@203.0.113.9/hook", "ftp://203.0.113.9/hook", "not a url", "https://0.0.0.0/hook",
                    // IPv4 inside IPv6: compatible, NAT64, local-use NAT64, 6to4, Teredo (client 10.0.0.1 obscured).
                    "https://[::10.0.0.1]/hook", "https://[64:ff9b::a00:1]/hook", "https://[64:ff9b:1::cb00:7109]/hook",
                    "https://[2002:a00:1::1]/hook", "https://[2001:0:cb00:7109:0:0:f5ff:fffe]/hook", "https://[fec0::1]/hook",
                    "https://192.0.0.8/hook", "https://198.18.0.1/hook", "https://198.19.255.1/hook",
                    // Every IPv4-embedding form is refused, whatever the address inside: translated
                    // (::ffff:0:169.254.169.254), and mapped, NAT64 and 6to4 around public addresses too.
                    "https://[::ffff:0:a9fe:a9fe]/hook", "https://[::ffff:0:cb00:7109]/hook", "https://[::ffff:203.0.113.9]/hook",
                    "https://[64:ff9b::cb00:7109]/hook", "https://[2002:cb00:7109::1]/hook",
                    "https://[2001:0:cb00:7109:0:0:34ff:8ef6]/hook"] {
            await expectError("invalid_callback_url") { try await fixture.send(level: 0, callback: url) }
        }
        // A public address is accepted (nothing is sent until the notification is final), IPv6 too.
        _ = try await fixture.send(level: 0, callback: "https://203.0.113.9/hook")
        _ = try await fixture.send(level: 0, callback: "https://[2001:db8:1::9]/hook")
    }

    @Test(.enabled(if: StoreKind.available.contains(.postgresql)))
    func twoNodesDeliverEachEventOnce() async throws {
        let receiver = try WebhookReceiver(delay: { _ in 0.02 })
        defer { receiver.stop() }
        let schema = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        let open = { try SQLStore.openPostgres(url: TestEnvironment.postgresURL ?? "", options: PostgresOptions(connectTimeoutSeconds: 2, schema: String(schema))) }
        let first = try LiveServer(store: open()) {
            Self.fast(&$0)
            $0.notifications.maximumPendingPerUser = 20
        }
        defer { first.stop() }
        let (client, userID, _) = try await IdentityFlowTests.activatedUser(first)
        let rp = try first.admin()
        var ids: [String] = []
        for index in 0..<12 {
            let created = try await rp.createNotification(CreateNotificationRequest(
                userID: userID, subject: "Sign-in \(index)", message: "Is it you?",
                actions: [NotificationAction(label: "Yes", action: "yes", authLevel: 0)], callbackURL: receiver.url))
            ids.append(created.notificationUUID)
        }
        for id in ids {
            let shown = try #require(try await client.getNotifications().notifications.first { $0.notificationUUID == id })
            _ = try await client.updateNotification(shown, action: "yes")
        }
        // Only now do two nodes start delivering the same outbox.
        var configuration = ServerConfiguration()
        Self.fast(&configuration)
        configuration.webhooks.allowsLoopbackHTTP = true
        configuration.idvEnabled = false
        configuration.argon2Iterations = Argon2id.Cost.testing.iterations
        configuration.argon2MemoryKiB = Argon2id.Cost.testing.memoryKiB
        let nodes = try [first.store, open()].map { store in
            let services = try ApplicationFactory.services(configuration, store: store, masterKeys: MasterKeys(primary: LiveServer.masterKey))
            return (store, services.startWebhooks(store: store, configuration: configuration, logger: Logger(sink: MemoryLogSink())))
        }
        defer { nodes.forEach { $0.1.stop() } }
        #expect(await receiver.wait { $0.count >= 12 })
        try await Task.sleep(for: .milliseconds(500))
        #expect(receiver.requests.count == 12 && receiver.processed.count == 12)
        nodes.last?.0.close()
    }
}
