import CustosHTTP
import Foundation
import Synchronization

/// A relying party's webhook endpoint on a loopback port, for tests: records every request,
/// answers each delivery's n-th attempt as told, and counts what it processed once per
/// idempotency id (`X-Custos-Delivery`), as a real receiver would.
public final class WebhookReceiver: Sendable {
    public struct Received: Sendable {
        public let deliveryID: String
        public let signature: String
        public let body: Data
        /// The `Authorization` header (a CIBA ping's bearer token).
        public let authorization: String?
        public let contentType: String?
        /// 1 for the first request of this delivery id, 2 for the retry, …
        public let attempt: Int
        public let status: Int
    }

    private final class Log: Sendable {
        let items = Mutex<[Received]>([])
    }

    private let server: HTTPServer
    private let log = Log()

    /// `answer(attempt)` is the status of a delivery's n-th request; `delay(attempt)` how long the
    /// receiver takes before answering it; `location`, the `Location` of a 3xx answer; `host`,
    /// the loopback address it listens on (`::1` for IPv6).
    public init(host: String = "127.0.0.1", answer: @escaping @Sendable (Int) -> Int = { _ in 200 },
                delay: @escaping @Sendable (Int) -> TimeInterval = { _ in 0 }, location: String? = nil) throws {
        let received = log
        var router = Router()
        router.post("/hook") { request in
            let id = request.headers["X-Custos-Delivery"] ?? ""
            // Recorded on arrival, before any delay: a sender killed meanwhile still counts as having sent it.
            let (attempt, status) = received.items.withLock { list -> (Int, Int) in
                let attempt = list.filter { $0.deliveryID == id }.count + 1
                let status = answer(attempt)
                list.append(Received(deliveryID: id, signature: request.headers["X-Custos-Signature"] ?? "", body: request.body,
                                     authorization: request.headers["Authorization"], contentType: request.headers["Content-Type"],
                                     attempt: attempt, status: status))
                return (attempt, status)
            }
            let wait = delay(attempt)
            if wait > 0 { Thread.sleep(forTimeInterval: wait) }
            var response = Response(status: status, body: Data("{}".utf8))
            if let location, (300..<400).contains(status) { response.headers.set("Location", location) }
            return response
        }
        self.host = host
        server = HTTPServer(configuration: HTTPServerConfiguration(host: host, port: 0, threads: 2, workers: 4), router: router,
                            logger: Logger(sink: MemoryLogSink(), level: .error))
        try server.start()
    }

    private let host: String

    public var url: String { "http://\(host.contains(":") ? "[\(host)]" : host):\(server.port ?? 0)/hook" }

    /// Every request, in arrival order.
    public var requests: [Received] { log.items.withLock { $0 } }

    /// The deliveries a receiver that ignores repeated ids processed: the first 2xx of each id.
    public var processed: [Received] {
        var seen = Set<String>()
        return requests.filter { (200..<300).contains($0.status) && seen.insert($0.deliveryID).inserted }
    }

    /// Waits until `condition` holds on the requests, at most `timeout` seconds.
    public func wait(timeout: TimeInterval = 20, until condition: ([Received]) -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition(requests) { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return condition(requests)
    }

    public func stop() { server.stop() }
}
