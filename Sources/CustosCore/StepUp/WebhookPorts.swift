import Foundation
import Synchronization

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
