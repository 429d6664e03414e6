import CustosCore
import CustosHTTP
import Foundation
import Synchronization

/// Delivers the webhook outbox: leases due rows (one node per row, whatever the number of
/// nodes), POSTs each signed body to its callback, and records the attempt: delivered on a
/// 2xx answer, otherwise retried with exponential backoff until the attempts run out. A
/// process killed mid-delivery leaves its lease to run out; another (or the restarted one)
/// then sends the same delivery again, with the same idempotency id.
public final class WebhookDispatcher: @unchecked Sendable {
    private let store: any WebhookOutboxStore
    private let signer: any WebhookSigner
    private let callbacks: CallbackURLPolicy
    private let policy: NotificationPolicy
    private let configuration: WebhookConfiguration
    private let clock: any Clock
    private let logger: Logger
    /// This process's name on the leases it takes.
    public let owner: String
    private let poster: CurlPoster
    private let timer: DispatchSourceTimer
    private let running = Mutex((busy: false, again: false))
    private let bellQueue = DispatchQueue(label: "custos.webhooks.bell")

    public init(store: any WebhookOutboxStore, signer: any WebhookSigner, callbacks: CallbackURLPolicy, policy: NotificationPolicy,
                configuration: WebhookConfiguration, clock: any Clock, logger: Logger) {
        self.store = store
        self.signer = signer
        self.callbacks = callbacks
        self.policy = policy
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        owner = "node-" + UUID().uuidString.lowercased()
        poster = CurlPoster(connectTimeout: configuration.connectTimeout, totalTimeout: configuration.totalTimeout)
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

    /// Stops the worker (deliveries in flight finish within their timeout; their leases run out
    /// if the process ends).
    public func stop() {
        timer.cancel()
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

    /// Sends a claimed delivery (the claim counted the attempt: a process killed during the POST
    /// leaves it counted, and the retry after the lease counts its own) and records the outcome.
    private func deliver(_ claimed: WebhookDelivery) {
        var delivery = claimed
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
        let callback: CallbackURLPolicy.CheckedCallback
        do {
            callback = try callbacks.checked(delivery.url)
        } catch let error as StepUpError {
            return (nil, error.message)
        } catch {
            return (nil, "\(error)")
        }
        let timestamp = Int(clock.now().timeIntervalSince1970)
        var headers = [("Content-Type", delivery.contentType), ("X-Custos-Delivery", delivery.id), ("Idempotency-Key", delivery.id),
                       ("X-Custos-Signature", signer.signatureHeader(apiKeyID: delivery.apiKeyID, timestamp: timestamp, body: delivery.body))]
        if let authorization = delivery.authorization { headers.append(("Authorization", authorization)) }
        return poster.post(delivery.url, pinned: callback, headers: headers, body: delivery.body)
    }
}
