import CustosAPI
import CustosHTTP
import CustosSDK
import Foundation
import Synchronization

/// `custos bench notify`: step-up notifications per second against a running server — created
/// by the relying party, answered by the users through the SDK (level 0, or level 1 with the
/// password step-up), and their webhooks delivered to a receiver this command runs on loopback.
enum BenchNotifyCommand {
    static let concurrency = BenchAccounts.concurrency("users answering at once", default: 4)
    static let level = Option<Int>.integer("level", in: 0...1, default: 0, help: "the auth level of the action answered: 0 none, 1 password")
    static let noWebhooks = Flag("no-webhooks", help: "no callback URL (the server must run with --dev for loopback webhooks)")

    static let command = Command(spec: CommandSpec(
        path: "bench notify", summary: "Measure notifications created, answered (level 0 or 1) and their webhooks delivered per second.",
        options: [ClientOptions.server.spec, ClientOptions.apiKey.spec, BenchAccounts.seconds.spec, concurrency.spec, level.spec, noWebhooks.spec],
        example: "custos bench notify --seconds 10 --concurrency 4 --level 1")
    ) { arguments in
        let (seconds, concurrency) = (arguments[BenchAccounts.seconds], arguments[concurrency])
        let authLevel = AuthLevel(rawValue: arguments[level])
        let admin = try ClientOptions.adminClient(arguments)
        let server = try ClientOptions.serverURL(arguments)
        let password = "bench password 123"
        let receiver = arguments[noWebhooks] ? nil : try Receiver()
        defer { receiver?.stop() }

        let samples = try await BenchAccounts.withKeyDirectory { keys in
            let accounts = try await BenchAccounts.provision(concurrency, prefix: "notify", admin: admin, server: server,
                                                             password: password, keys: keys)
            let deadline = Date().addingTimeInterval(Double(seconds))
            return try await withThrowingTaskGroup(of: [Sample].self) { group in
                for account in accounts {
                    let answering = account.client.events.on(.onGetPassword) { [client = account.client] _ in client.setPassword(password) }
                    group.addTask {
                        defer { answering.remove() }
                        return try await rounds(account, admin: admin, level: authLevel, callback: receiver?.url, until: deadline)
                    }
                }
                return try await group.reduce(into: [Sample]()) { $0 += $1 }
            }
        }
        guard !samples.isEmpty else { throw CommandFailure("no notification was answered") }
        let rate = { (count: Int) in Double(count) / Double(seconds) }
        Console.out(String(format: "created: %d, %.1f/s, p50 %.1f ms, p95 %.1f ms", samples.count, rate(samples.count),
                           BenchAccounts.percentile(samples.map(\.created), 0.5), BenchAccounts.percentile(samples.map(\.created), 0.95)))
        Console.out(String(format: "answered (level %d): %d, %.1f/s, p50 %.1f ms, p95 %.1f ms", authLevel.rawValue, samples.count,
                           rate(samples.count), BenchAccounts.percentile(samples.map(\.answered), 0.5), BenchAccounts.percentile(samples.map(\.answered), 0.95)))
        if let receiver {
            // Deliveries still in the outbox are waited for, at most 30 s.
            let wanted = Set(samples.map(\.uuid))
            let waitUntil = Date().addingTimeInterval(30)
            while Date() < waitUntil, !wanted.isSubset(of: Set(receiver.arrivals.keys)) { try await Task.sleep(for: .milliseconds(50)) }
            let arrivals = receiver.arrivals
            let latencies = samples.compactMap { sample in arrivals[sample.uuid].map { $0.timeIntervalSince(sample.answeredAt) * 1000 } }
            let first = samples.map(\.answeredAt).min() ?? Date()
            let span = max(0.001, (arrivals.values.max() ?? first).timeIntervalSince(first))
            Console.out(String(format: "delivered: %d of %d, %.1f/s, p50 %.1f ms, p95 %.1f ms after the answer",
                               latencies.count, samples.count, Double(latencies.count) / span,
                               BenchAccounts.percentile(latencies, 0.5), BenchAccounts.percentile(latencies, 0.95)))
        }
        Console.out("(concurrency \(concurrency), \(seconds) s)")
        return .ok
    }

    struct Sample: Sendable {
        let uuid: String
        let created: Double
        let answered: Double
        let answeredAt: Date
    }

    /// One user's notifications until the deadline: sent by the relying party, then answered.
    private static func rounds(_ account: BenchAccounts.Account, admin: CustosAdminClient, level: AuthLevel, callback: String?,
                               until deadline: Date) async throws -> [Sample] {
        var samples: [Sample] = []
        while Date() < deadline {
            let start = DispatchTime.now().uptimeNanoseconds
            let created = try await admin.createNotification(CreateNotificationRequest(
                userID: account.userID, subject: "Payment", message: "Approve 12.00 EUR?",
                actions: [NotificationAction(label: "Approve", action: "approve", authLevel: level)],
                authorizationDetails: TransactionDetails(type: "payment", amount: "12.00", currency: "EUR", payee: "Bench"),
                callbackURL: callback))
            let sent = DispatchTime.now().uptimeNanoseconds
            let shown = NotificationInfo(notificationUUID: created.notificationUUID, subject: "Payment", message: "Approve 12.00 EUR?",
                                         actions: [], authorizationDetails: nil, numberMatching: false, status: .pending,
                                         createdAt: Date(), expiresAt: created.expiresAt)
            let result = try await account.client.updateNotification(shown, action: "approve")
            guard result.statusCode == .success else {
                throw CommandFailure("answering \(created.notificationUUID) answered \(result.statusCode) \(result.statusMessage)")
            }
            let done = DispatchTime.now().uptimeNanoseconds
            samples.append(Sample(uuid: created.notificationUUID, created: Double(sent - start) / 1e6, answered: Double(done - sent) / 1e6,
                                  answeredAt: Date()))
        }
        return samples
    }

    /// A webhook receiver on loopback: when each notification's result arrived.
    private final class Receiver: Sendable {
        private let server: HTTPServer

        init() throws {
            var router = Router()
            let box = Box()
            router.post("/hook") { request in
                if let event = try? WireJSON.decoder().decode(WebhookEvent.self, from: request.body) {
                    box.record(event.result.notificationUUID)
                }
                return Response(status: 204)
            }
            server = HTTPServer(configuration: HTTPServerConfiguration(port: 0, threads: 2, workers: 4), router: router,
                                logger: Logger(sink: MemoryLogSink(), level: .error))
            try server.start()
            self.box = box
        }

        private let box: Box

        private final class Box: Sendable {
            let times = Mutex<[String: Date]>([:])
            func record(_ uuid: String) { times.withLock { if $0[uuid] == nil { $0[uuid] = Date() } } }
        }

        var url: String { "http://127.0.0.1:\(server.port ?? 0)/hook" }
        var arrivals: [String: Date] { box.times.withLock { $0 } }
        func stop() { server.stop() }
    }
}
