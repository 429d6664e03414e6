import CustosAPI
import CustosCore
import CustosDelivery
import CustosTestSupport
import Foundation
import Testing

/// One relying party's receiver that hangs or fails holds back only its own deliveries: each
/// delivery frees its slot when it ends, a receiver gets at most `perReceiverConcurrency` of
/// them, and its circuit opens after failures in a row.
@Suite struct WebhookIsolationTests {
    /// Four results for a receiver that hangs, then three for a healthy one: the healthy one gets
    /// all three while the hanging one has been sent no more than its share (two), whatever the
    /// order the outbox holds them in.
    @Test(arguments: StoreKind.available)
    func aHangingReceiverHoldsBackOnlyItsOwnDeliveries(kind: StoreKind) async throws {
        // It answers only when the test ends (or after fifteen minutes): nothing it was sent ends
        // meanwhile, however long make test's load stretches the test (a two-minute bound once
        // ran out under it, and the receiver's answer freed a slot for a third delivery).
        let release = DispatchSemaphore(value: 0)
        let hanging = try WebhookReceiver(delay: { _ in
            _ = release.wait(timeout: .now() + 900)
            return 0
        })
        defer {
            for _ in 0..<10 { release.signal() }
            hanging.stop()
        }
        let healthy = try WebhookReceiver()
        defer { healthy.stop() }
        let fixture = try await StepUpFixture.make(kind, webhooks: true) {
            WebhookDeliveryTests.fast(&$0)
            $0.webhooks.totalTimeout = 900
            $0.webhooks.connectTimeout = 900
        }
        defer { fixture.live.stop() }
        for callback in Array(repeating: hanging.url, count: 4) + Array(repeating: healthy.url, count: 3) {
            let created = try await fixture.send(level: 0, callback: callback)
            _ = try await fixture.client.updateNotification(try await fixture.shown(created.notificationUUID), action: "approve")
        }
        #expect(await healthy.wait(timeout: 120) { Set($0.map(\.deliveryID)).count >= 3 })
        #expect(hanging.requests.count <= 2, "the hanging receiver was sent \(hanging.requests.count) at once")
        // The healthy receiver records a request on arrival: its answer may still be on the way back.
        var metrics = ""
        for _ in 0..<600 {
            metrics = fixture.live.dispatcher?.renderMetrics() ?? ""
            if metrics.contains("custos_webhook_deliveries_in_flight 2\n") { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(metrics.contains("custos_webhook_deliveries_in_flight 2\n") && hanging.requests.count <= 2,
                "\(metrics)\nhanging: \(hanging.requests.map(\.deliveryID))\n\(fixture.live.log.lines.filter { $0.contains("webhook") }.joined(separator: "\n"))")
    }

    /// A receiver that answers 500 every time: after three failures in a row its circuit opens,
    /// no attempt is spent while it is open, and the metrics say so.
    @Test func repeatedFailuresOpenTheReceiversCircuit() async throws {
        let failing = try WebhookReceiver(answer: { _ in 500 })
        defer { failing.stop() }
        let fixture = try await StepUpFixture.make(.sqlite, webhooks: true) {
            WebhookDeliveryTests.fast(&$0)
            $0.webhooks.circuitFailures = 3
            $0.webhooks.circuitCooldown = 600
        }
        defer { fixture.live.stop() }
        let created = try await fixture.send(level: 0, callback: failing.url)
        _ = try await fixture.client.updateNotification(try await fixture.shown(created.notificationUUID), action: "approve")
        #expect(await failing.wait { $0.count >= 3 })
        // Retries are 50 ms apart: without the circuit, a second brings several more.
        try await Task.sleep(for: .seconds(1))
        #expect(failing.requests.count == 3)
        let delivery = try await fixture.rp.notificationResult(created.notificationUUID).delivery
        #expect(delivery?.state == "pending" && delivery?.attempts == 3, "\(String(describing: delivery))")
        let metrics = try #require(fixture.live.dispatcher?.renderMetrics())
        #expect(metrics.contains("custos_webhook_circuits_open 1") && metrics.contains("custos_webhook_circuit_openings_total 1"), "\(metrics)")
        #expect(fixture.live.log.lines.contains { $0.contains("webhook_circuit_open") })
    }

    @Test(arguments: [
        ("https://rp.example/hook?x=1", "https://rp.example:443"),
        ("http://RP.example:8080/a", "http://rp.example:8080"),
        ("http://[::1]:9000/hook", "http://[::1]:9000"),
    ])
    func receiversAreTheirOrigins(url: String, receiver: String) {
        #expect(WebhookDispatcher.receiver(of: url) == receiver)
    }
}
