import Foundation

/// How the server calls webhook receivers.
public struct WebhookConfiguration: Sendable, Equatable {
    /// Seconds to connect (and the longest silence while waiting for the answer).
    public var connectTimeout: TimeInterval = 5
    /// Seconds a delivery may take in all.
    public var totalTimeout: TimeInterval = 10
    /// Accept callbacks on private, loopback and link-local addresses (an operator whose
    /// relying party sits on the same network); off, nothing reaches the operator's network.
    public var allowsPrivateAddresses = false
    /// Development: plain http to a loopback receiver.
    public var allowsLoopbackHTTP = false
    /// How often the worker looks for due deliveries.
    public var pollInterval: TimeInterval = 0.25
    /// Deliveries one worker sends at once.
    public var concurrency = 8
    /// Deliveries one worker sends at once to one receiver (scheme, host and port): a slow or
    /// hanging receiver holds this many of `concurrency`, never all of them.
    public var perReceiverConcurrency = 2
    /// Failed attempts in a row (no answer, 5xx or 429) after which a receiver's circuit opens:
    /// its deliveries wait `circuitCooldown` without being attempted, then one is tried.
    public var circuitFailures = 5
    public var circuitCooldown: TimeInterval = 30
    /// How long a delivery whose receiver already has `perReceiverConcurrency` in flight waits
    /// (`totalTimeout` when the receiver's last attempt failed).
    public var busyReceiverDelay: TimeInterval = 1

    public init() {}
}
