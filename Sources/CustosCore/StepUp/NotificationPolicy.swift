import Foundation
import Synchronization

/// The limits and defaults of step-up notifications and their webhooks.
public struct NotificationPolicy: Sendable, Equatable {
    /// Lifetime of a notification whose creator names none.
    public var defaultLifetime: TimeInterval = 300
    /// The longest lifetime a creator may ask for.
    public var maximumLifetime: TimeInterval = 86400
    /// Pending notifications one user may have at once (push fatigue); more is 429.
    public var maximumPendingPerUser = 5
    /// Pending notifications one API key may have at once.
    public var maximumPendingPerKey = 10000
    /// Whether auth level 2 (app-defined) is accepted.
    public var allowsAppDefinedLevel = false
    /// Who signs the results (`iss`).
    public var issuer = "custos"
    /// How long closed notifications (history, results, webhook deliveries) are kept.
    public var retention: TimeInterval = 90 * 86400
    /// Webhook attempts before a delivery is marked failed.
    public var webhookMaximumAttempts = 8
    /// The first retry's delay; each further one doubles, up to `webhookMaximumBackoff`.
    public var webhookBackoff: TimeInterval = 2
    public var webhookMaximumBackoff: TimeInterval = 600

    public init() {}

    /// When the delivery that has failed `attempts` times is tried again.
    public func nextWebhookAttempt(after attempts: Int, now: Date) -> Date {
        let delay = min(webhookMaximumBackoff, webhookBackoff * pow(2, Double(max(0, attempts - 1))))
        return now.addingTimeInterval(delay)
    }
}

/// Checks a callback URL when a notification is created (and again before each delivery):
/// the scheme, no credentials in it, and no address in the operator's own network.
public protocol CallbackURLValidator: Sendable {
    /// Throws `StepUpError` (`invalid_callback_url`) when the URL may not be called.
    func validate(_ url: String) throws
}

/// Signs webhooks with a secret per API key.
public protocol WebhookSigner: Sendable {
    /// The secret of `apiKeyID`'s webhooks, base64url (what the relying party verifies with).
    func secret(apiKeyID: String) -> String
    /// The `X-Custos-Signature` header value: `t=<timestamp>,v1=<hex HMAC-SHA256 of "<t>.<body>">`.
    func signatureHeader(apiKeyID: String, timestamp: Int, body: Data) -> String
}

/// Rung after a transaction that wrote to the webhook outbox commits, so the delivery worker of
/// this process sends at once instead of at its next poll (other nodes find the row when they
/// poll). The worker installs itself when it starts.
public final class OutboxBell: Sendable {
    private let listener = Mutex<(@Sendable () -> Void)?>(nil)

    public init() {}

    public func listen(_ handler: @escaping @Sendable () -> Void) { listener.withLock { $0 = handler } }

    public func ring() { listener.withLock { $0 }?() }
}
