import Foundation

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
    /// How long a signed step-up result stays valid (`exp - iat`): long enough for every
    /// webhook retry and a poll the next day.
    public var resultLifetime: TimeInterval = 86400
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
