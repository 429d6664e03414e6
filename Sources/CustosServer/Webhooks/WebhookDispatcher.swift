import CustosCore
import CustosHTTP
import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Delivers the webhook outbox: leases due rows (one node per row, whatever the number of
/// nodes), POSTs each signed body to its callback, and records the attempt: delivered on a
/// 2xx answer, otherwise retried with exponential backoff until the attempts run out. A
/// process killed mid-delivery leaves its lease to run out; another (or the restarted one)
/// then sends the same delivery again, with the same idempotency id.
public final class WebhookDispatcher: @unchecked Sendable {
    private let store: any WebhookOutboxStore
    private let signer: any WebhookSigner
    private let callbacks: any CallbackURLValidator
    private let policy: NotificationPolicy
    private let configuration: WebhookConfiguration
    private let clock: any Clock
    private let logger: Logger
    /// This process's name on the leases it takes.
    public let owner: String
    private let session: URLSession
    private let timer: DispatchSourceTimer
    private let running = Mutex((busy: false, again: false))
    private let bellQueue = DispatchQueue(label: "custos.webhooks.bell")

    public init(store: any WebhookOutboxStore, signer: any WebhookSigner, callbacks: any CallbackURLValidator, policy: NotificationPolicy,
                configuration: WebhookConfiguration, clock: any Clock, logger: Logger) {
        self.store = store
        self.signer = signer
        self.callbacks = callbacks
        self.policy = policy
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        owner = "node-" + UUID().uuidString.lowercased()
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.timeoutIntervalForRequest = configuration.connectTimeout
        sessionConfiguration.timeoutIntervalForResource = configuration.totalTimeout
        sessionConfiguration.httpMaximumConnectionsPerHost = configuration.concurrency
        session = URLSession(configuration: sessionConfiguration, delegate: NoRedirects(), delegateQueue: nil)
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "custos.webhooks"))
    }

    /// Starts delivering in the background: at every poll, and at once when `bell` rings.
    public func start(bell: OutboxBell? = nil) {
        timer.schedule(deadline: .now() + configuration.pollInterval, repeating: configuration.pollInterval)
        timer.setEventHandler { [weak self] in self?.drain() }
        timer.resume()
        bell?.listen { [weak self] in self?.ring() }
    }

    /// Drains on a queue of its own (a drain already running picks the new row up in its loop).
    private func ring() {
        bellQueue.async { [weak self] in self?.drain() }
    }

    /// Stops the worker (deliveries in flight finish; their leases run out if the process ends).
    /// In-flight tasks are left to end by their timeouts rather than cancelled: Foundation on
    /// Linux traps when a task is cancelled while its redirect decision is pending.
    public func stop() {
        timer.cancel()
        session.finishTasksAndInvalidate()
    }

    /// Sends what is due until nothing is; returns how many deliveries were attempted.
    @discardableResult
    public func drain() -> Int {
        // One drain at a time; a call while one runs makes that one look again before it stops.
        guard running.withLock({ state in
            if state.busy { state.again = true; return false }
            state = (busy: true, again: false)
            return true
        }) else { return 0 }
        var total = 0
        while true {
            let now = clock.now()
            let leaseUntil = now.addingTimeInterval(configuration.totalTimeout + 5)
            let batch: [WebhookDelivery]
            do {
                batch = try store.claimWebhooks(owner: owner, now: now, leaseUntil: leaseUntil, limit: configuration.concurrency)
            } catch {
                logger.warning("webhook_claim_failed", ["error": .string("\(error)")])
                running.withLock { $0 = (busy: false, again: false) }
                return total
            }
            if batch.isEmpty {
                let again = running.withLock { state in
                    defer { state = (busy: state.again, again: false) }
                    return state.again
                }
                if again { continue }
                return total
            }
            DispatchQueue.concurrentPerform(iterations: batch.count) { index in deliver(batch[index]) }
            total += batch.count
        }
    }

    private func deliver(_ claimed: WebhookDelivery) {
        var delivery = claimed
        delivery.attempts += 1
        let (status, failure) = send(delivery)
        let now = clock.now()
        delivery.lastStatus = status
        delivery.lastError = failure
        if let status, (200..<300).contains(status) {
            delivery.state = .delivered
            delivery.deliveredAt = now
        } else if delivery.attempts >= policy.webhookMaximumAttempts {
            delivery.state = .failed
        } else {
            delivery.nextAttemptAt = policy.nextWebhookAttempt(after: delivery.attempts, now: now)
        }
        do {
            if try !store.recordWebhookAttempt(delivery, owner: owner) {
                logger.warning("webhook_lease_lost", ["delivery_id": .string(delivery.id)])
            }
        } catch {
            logger.warning("webhook_record_failed", ["delivery_id": .string(delivery.id), "error": .string("\(error)")])
        }
        logger.info("webhook_attempt", ["delivery_id": .string(delivery.id), "attempt": .int(delivery.attempts),
                                        "status": status.map { .int($0) } ?? .string("none"), "state": .string(delivery.state.rawValue)])
    }

    /// POSTs the body; the answer's status, or why there was none.
    private func send(_ delivery: WebhookDelivery) -> (Int?, String?) {
        do {
            try callbacks.validate(delivery.url)
        } catch let error as StepUpError {
            return (nil, error.message)
        } catch {
            return (nil, "\(error)")
        }
        guard let url = URL(string: delivery.url) else { return (nil, "unreadable URL") }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = delivery.body
        let timestamp = Int(clock.now().timeIntervalSince1970)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(delivery.id, forHTTPHeaderField: "X-Custos-Delivery")
        request.setValue(delivery.id, forHTTPHeaderField: "Idempotency-Key")
        if let authorization = delivery.authorization { request.setValue(authorization, forHTTPHeaderField: "Authorization") }
        request.setValue(signer.signatureHeader(apiKeyID: delivery.apiKeyID, timestamp: timestamp, body: delivery.body),
                         forHTTPHeaderField: "X-Custos-Signature")
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<(Int?, String?)>((nil, "no answer"))
        let task = session.dataTask(with: request) { _, response, error in
            outcome.withLock { value in
                if let response = response as? HTTPURLResponse {
                    value = (response.statusCode, (200..<300).contains(response.statusCode) ? nil : "HTTP \(response.statusCode)")
                } else {
                    value = (nil, error.map { String(describing: type(of: $0)) + ": " + $0.localizedDescription } ?? "no answer")
                }
            }
            done.signal()
        }
        task.resume()
        // The session's own resource timeout ends the task; this wait is only a backstop (the
        // task is not cancelled here, for the reason `stop` gives).
        if done.wait(timeout: .now() + configuration.totalTimeout + 1) == .timedOut {
            return (nil, "timed out after \(Int(configuration.totalTimeout)) s")
        }
        return outcome.withLock { $0 }
    }
}

/// A receiver's redirect is not followed: it could point anywhere, the operator's network included.
private final class NoRedirects: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}
