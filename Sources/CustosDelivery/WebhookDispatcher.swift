import CustosConfiguration
import CustosCore
import CustosHTTP
import Foundation
import Synchronization

/// Delivers the webhook outbox: leases due rows (one node per row, whatever the number of
/// nodes), POSTs each signed body to its callback, and records the attempt: delivered on a
/// 2xx answer, otherwise retried with exponential backoff until the attempts run out. A
/// process killed mid-delivery leaves its lease to run out; another (or the restarted one)
/// then sends the same delivery again, with the same idempotency id.
///
/// Receivers do not hold each other back: each delivery runs on its own and frees its slot when
/// it ends (no batch waits for its slowest), a receiver gets at most `perReceiverConcurrency` of
/// the `concurrency` slots (a relying party's receivers together half of them), and after
/// `circuitFailures` failures in a row its circuit opens for
/// `circuitCooldown`: its deliveries are put back, unattempted, until then (then one is tried).
/// Circuits are this node's own view; `/metrics` shows them (`renderMetrics`).
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
    private let state = Mutex(State())
    private let bellQueue = DispatchQueue(label: "custos.webhooks.bell")
    private let deliveries = DispatchQueue(label: "custos.webhooks.deliveries", attributes: .concurrent)

    /// One receiver as this node sees it.
    struct Receiver {
        var inFlight = 0
        /// Failed attempts in a row.
        var failures = 0
        /// While in the future: open, nothing is sent; once past: one trial at a time.
        var openUntil: Date?
    }

    struct State {
        /// A drain is running; `again`: something rang meanwhile, so it looks once more.
        var busy = false
        var again = false
        /// `stop` was called: nothing more is claimed.
        var stopped = false
        var inFlight = 0
        var receivers: [String: Receiver] = [:]
        /// Deliveries in flight by the API key they belong to.
        var perSender: [String: Int] = [:]
        /// The ids of the deliveries being sent.
        var sending: Set<String> = []
        var circuitOpenings = 0
        var deferred = 0
    }

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
        state.withLock { $0.stopped = true }
    }

    /// Starts sending what is due, into the free slots, until nothing due is left or every slot
    /// is taken (a delivery that ends rings again); returns how many deliveries it started.
    @discardableResult
    public func drain() -> Int {
        // One drain at a time; a call while one runs makes that one look again before it stops.
        guard state.withLock({ state in
            if state.stopped { return false }
            if state.busy { state.again = true; return false }
            (state.busy, state.again) = (true, false)
            return true
        }) else { return 0 }
        var started = 0
        while true {
            let free = state.withLock { configuration.concurrency - $0.inFlight }
            let now = clock.now()
            var batch: [WebhookDelivery] = []
            if free > 0 {
                do {
                    batch = try store.claimWebhooks(owner: owner, now: now, leaseUntil: now.addingTimeInterval(configuration.totalTimeout + 5),
                                                    limit: free, maximumAttempts: policy.webhookMaximumAttempts)
                } catch {
                    logger.warning("webhook_claim_failed", ["error": .string("\(error)")])
                    state.withLock { ($0.busy, $0.again) = (false, false) }
                    return started
                }
            }
            if batch.isEmpty {
                let again = state.withLock { state in
                    defer { (state.busy, state.again) = (state.again, false) }
                    return state.again
                }
                if again { continue }
                return started
            }
            var sent = 0
            for delivery in batch {
                // Still being sent by this node past its lease (a starved thread, a slow DNS
                // answer): the claim only renewed the lease; the send in flight records it.
                guard state.withLock({ !$0.sending.contains(delivery.id) }) else { continue }
                let receiver = Self.receiver(of: delivery.url)
                if let wait = admit(receiver, sender: delivery.apiKeyID, now: now) {
                    putBack(delivery, until: wait)
                    continue
                }
                sent += 1
                state.withLock { _ = $0.sending.insert(delivery.id) }
                deliveries.async { [self] in
                    let succeeded = deliver(delivery)
                    state.withLock { _ = $0.sending.remove(delivery.id) }
                    finished(receiver, sender: delivery.apiKeyID, succeeded: succeeded)
                    ring()
                }
            }
            started += sent
            if sent == 0 {
                // All put back (busy receivers): the next poll looks again, rather than this loop
                // claiming and putting back a backlog without pause.
                state.withLock { ($0.busy, $0.again) = (false, false) }
                return started
            }
        }
    }

    /// Takes a slot for a delivery to `receiver` from `sender` (the relying party's key); nil when
    /// it may go now, otherwise until when it waits.
    private func admit(_ receiver: String, sender: String, now: Date) -> Date? {
        state.withLock { state in
            var entry = state.receivers[receiver] ?? Receiver()
            if let open = entry.openUntil, open > now { return open }
            // One relying party's receivers (many origins, say) hold half the slots at most.
            guard state.perSender[sender, default: 0] < max(1, configuration.concurrency / 2) else {
                return now.addingTimeInterval(configuration.busyReceiverDelay)
            }
            let limit = entry.openUntil == nil ? configuration.perReceiverConcurrency : 1
            // A busy receiver that is failing waits as long as its deliveries in flight may take:
            // a queue of its deliveries is not claimed and put back every second meanwhile.
            guard entry.inFlight < limit else {
                return now.addingTimeInterval(entry.failures > 0 ? configuration.totalTimeout : configuration.busyReceiverDelay)
            }
            entry.inFlight += 1
            state.inFlight += 1
            state.perSender[sender, default: 0] += 1
            state.receivers[receiver] = entry
            return nil
        }
    }

    /// Frees the slot; counts the failure in a row towards the circuit, or closes it on a success.
    private func finished(_ receiver: String, sender: String, succeeded: Bool) {
        let now = clock.now()
        let opened = state.withLock { state -> Bool in
            var entry = state.receivers[receiver] ?? Receiver()
            entry.inFlight -= 1
            state.inFlight -= 1
            state.perSender[sender, default: 1] -= 1
            if state.perSender[sender] == 0 { state.perSender[sender] = nil }
            var opened = false
            if succeeded {
                entry.failures = 0
                entry.openUntil = nil
            } else {
                entry.failures += 1
                if entry.failures >= configuration.circuitFailures && (entry.openUntil.map { $0 <= now } ?? true) {
                    entry.openUntil = now.addingTimeInterval(configuration.circuitCooldown)
                    state.circuitOpenings += 1
                    opened = true
                }
            }
            state.receivers[receiver] = entry.inFlight == 0 && entry.failures == 0 ? nil : entry
            if state.receivers.count > 10_000 {
                // Failing receivers nobody sends to any more: forget those whose circuit is not open.
                state.receivers = state.receivers.filter { $0.value.inFlight > 0 || ($0.value.openUntil ?? .distantPast) > now }
            }
            return opened
        }
        if opened {
            // The receiver's origin only: a path or query could carry what the relying party put there.
            logger.warning("webhook_circuit_open", ["receiver": .string(receiver), "seconds": .int(Int(configuration.circuitCooldown))])
        }
    }

    /// A claimed delivery not sent now: due again at `until`, its claim's attempt taken off.
    private func putBack(_ delivery: WebhookDelivery, until: Date) {
        do {
            if try store.deferWebhook(id: delivery.id, owner: owner, until: until) { state.withLock { $0.deferred += 1 } }
        } catch {
            logger.warning("webhook_defer_failed", ["delivery_id": .string(delivery.id), "error": .string("\(error)")])
        }
    }

    /// Who a delivery goes to, for concurrency and circuits: scheme, host and port.
    public static func receiver(of url: String) -> String {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(), let host = parts.host?.lowercased() else {
            return url
        }
        let port = parts.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\(host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host):\(port)"
    }

    /// The worker's state in the Prometheus text format, for `/metrics`.
    public func renderMetrics() -> String {
        let now = clock.now()
        let (inFlight, open, openings, deferred) = state.withLock { state in
            (state.inFlight, state.receivers.values.filter { ($0.openUntil ?? .distantPast) > now }.count, state.circuitOpenings, state.deferred)
        }
        return """
            # HELP custos_webhook_deliveries_in_flight Webhook and security-event deliveries being sent by this node now.
            # TYPE custos_webhook_deliveries_in_flight gauge
            custos_webhook_deliveries_in_flight \(inFlight)
            # HELP custos_webhook_circuits_open Receivers whose deliveries this node holds back after failures in a row.
            # TYPE custos_webhook_circuits_open gauge
            custos_webhook_circuits_open \(open)
            # HELP custos_webhook_circuit_openings_total Times a receiver's circuit opened on this node.
            # TYPE custos_webhook_circuit_openings_total counter
            custos_webhook_circuit_openings_total \(openings)
            # HELP custos_webhook_deferrals_total Deliveries put back unattempted: their receiver busy or its circuit open.
            # TYPE custos_webhook_deferrals_total counter
            custos_webhook_deferrals_total \(deferred)

            """
    }

    /// Sends a claimed delivery (the claim counted the attempt: a process killed during the POST
    /// leaves it counted, and the retry after the lease counts its own) and records the outcome;
    /// whether the receiver answered as a healthy one does (anything but no answer, 5xx or 429).
    private func deliver(_ claimed: WebhookDelivery) -> Bool {
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
        guard let status else { return false }
        return status < 500 && status != 429
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
