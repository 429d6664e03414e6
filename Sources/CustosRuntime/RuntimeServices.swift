import CustosConfiguration
import CustosCore
import CustosDelivery
import CustosHTTP
import CustosCrypto
import CustosCryptoServices
import CustosServer
import CustosStore
import CustosWebApp

/// The application's services as built, with their concrete types (tests drive them directly).
public struct RuntimeServices: Sendable {
    public let identity: IdentityService
    public let apiKeys: APIKeyService
    /// Nil when server biometrics are off.
    public let idv: IDVService?
    public let signer: SigningKeyRing
    public let clock: any Clock
    public let notifications: NotificationService
    public let webhookSigner: any WebhookSigner
    public let ciba: CIBAService
    public let oidc: OIDCService
    public let audit: AuditTrail

    /// The authentication endpoints' rate limits: in the database on PostgreSQL, where every
    /// node shares them; in memory on SQLite, a single node, where a write per request would cost.
    public func rateLimiter(_ configuration: ServerConfiguration, store: SQLStore) -> RateLimiter {
        RateLimiter(counters: configuration.databaseURL == nil ? MemoryCounters() : store, clock: clock, policy: configuration.rateLimits)
    }

    /// Starts delivering the webhook outbox in the background; stop it before closing `store`.
    public func startWebhooks(store: SQLStore, configuration: ServerConfiguration, logger: Logger) -> WebhookDispatcher {
        let webhooks = ApplicationFactory.webhookConfiguration(configuration)
        let dispatcher = WebhookDispatcher(store: store, signer: webhookSigner, callbacks: CallbackURLPolicy(webhooks),
                                           policy: notifications.policy, configuration: webhooks, clock: clock, logger: logger)
        dispatcher.start(bell: notifications.outboxBell)
        return dispatcher
    }

    /// What the HTTP application needs of them.
    public func dependencies(database: any DatabaseHealth, rateLimiter: RateLimiter? = nil, webApp: WebApp? = nil) -> ApplicationDependencies {
        ApplicationDependencies(database: database, identity: identity, apiKeys: apiKeys, clock: clock, idv: idv, signer: signer,
                                rateLimiter: rateLimiter, notifications: notifications, webhookSigner: webhookSigner, ciba: ciba, oidc: oidc,
                                audit: audit, webApp: webApp)
    }
}
