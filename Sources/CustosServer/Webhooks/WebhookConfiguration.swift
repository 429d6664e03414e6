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

    public init() {}
}
