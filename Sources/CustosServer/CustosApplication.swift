import CustosAPI
import CustosCore
import CustosHTTP
import CustosWebApp

/// The live parts the HTTP application needs, passed in by whoever wires the process.
public struct ApplicationDependencies: Sendable {
    public var database: any DatabaseHealth
    public var identity: IdentityService
    public var apiKeys: APIKeyService
    public var clock: any Clock
    /// Server biometrics; nil when the face engine is not available (its routes answer 503).
    public var idv: IDVService?
    /// The key ring behind signed results and `/.well-known/jwks.json`.
    public var signer: (any TokenSigner)?
    /// Limits on the authentication endpoints; nil for none.
    public var rateLimiter: RateLimiter?
    /// Step-up notifications; nil: their routes answer 503.
    public var notifications: NotificationService?
    /// Signs webhooks and tells relying parties their secret.
    public var webhookSigner: (any WebhookSigner)?
    /// OpenID CIBA; nil: its endpoints answer 404.
    public var ciba: CIBAService?
    /// The OpenID Connect provider (code flow, bound-device sign-in, clients); nil: its endpoints answer 404.
    public var oidc: OIDCService?
    /// The audit trail operators read and verify; nil: its endpoints answer 404.
    public var audit: AuditTrail?
    /// The web app's files; nil: `/` and `/app/` answer 404, and the authorization endpoint's page is plain.
    public var webApp: WebApp?

    public init(database: any DatabaseHealth, identity: IdentityService, apiKeys: APIKeyService, clock: any Clock = SystemClock(),
                idv: IDVService? = nil, signer: (any TokenSigner)? = nil, rateLimiter: RateLimiter? = nil,
                notifications: NotificationService? = nil, webhookSigner: (any WebhookSigner)? = nil, ciba: CIBAService? = nil,
                oidc: OIDCService? = nil, audit: AuditTrail? = nil, webApp: WebApp? = nil) {
        self.audit = audit
        self.webApp = webApp
        self.ciba = ciba
        self.oidc = oidc
        self.rateLimiter = rateLimiter
        self.notifications = notifications
        self.webhookSigner = webhookSigner
        self.database = database
        self.identity = identity
        self.apiKeys = apiKeys
        self.clock = clock
        self.idv = idv
        self.signer = signer
    }
}

/// Builds the router of every Custos endpoint and the HTTP server that serves it.
public enum CustosApplication {
    public static func makeRouter(_ dependencies: ApplicationDependencies, metrics: HTTPMetrics) -> Router {
        let groups = AccessGroups(identity: dependencies.identity, apiKeys: dependencies.apiKeys, rateLimiter: dependencies.rateLimiter)
        var routes = EndpointRouter()
        HealthRoutes.register(on: &routes, groups, database: dependencies.database, metrics: metrics)
        AdminRoutes.register(on: &routes, groups, identity: dependencies.identity, apiKeys: dependencies.apiKeys, clock: dependencies.clock)
        DeviceRoutes.register(on: &routes, groups, identity: dependencies.identity, notifications: dependencies.notifications)
        IDVRoutes.register(on: &routes, groups, identity: dependencies.identity, idv: dependencies.idv,
                           approvals: dependencies.notifications.map { DeviceApprovalService(identity: dependencies.identity, notifications: $0) })
        KeyRoutes.register(on: &routes, groups, signer: dependencies.signer, clock: dependencies.clock)
        NotificationRoutes.register(on: &routes, groups, notifications: dependencies.notifications, webhookSigner: dependencies.webhookSigner)
        OpenIDRoutes.register(on: &routes, groups, ciba: dependencies.ciba, oidc: dependencies.oidc)
        OIDCRoutes.register(on: &routes, groups, oidc: dependencies.oidc, ciba: dependencies.ciba, identity: dependencies.identity,
                            web: dependencies.webApp)
        PasskeyRoutes.register(on: &routes, groups, passkeys: dependencies.oidc.map(PasskeyService.init(sharing:)), identity: dependencies.identity)
        AuditRoutes.register(on: &routes, groups, audit: dependencies.audit)
        SignalRoutes.register(on: &routes, groups, signals: dependencies.identity.signals)
        WebRoutes.register(on: &routes, groups, web: dependencies.webApp)
        return routes.router
    }

    public static func makeServer(_ dependencies: ApplicationDependencies, configuration: HTTPServerConfiguration,
                                  logger: Logger) -> HTTPServer {
        let metrics = HTTPMetrics()
        return HTTPServer(configuration: configuration, router: makeRouter(dependencies, metrics: metrics),
                          logger: logger, metrics: metrics, errorMapper: ErrorMapping.httpError(for:), errorStyle: ErrorMapping.styled(path:_:))
    }

    /// `/healthz`, `/readyz` and `/metrics` alone, on a listener of their own (`--probe-port`):
    /// probes still get in when the main listener's connections are all taken (by slow
    /// clients, say). Its `/metrics` are `server`'s. Few connections, and a short header
    /// deadline: it is for an orchestrator on a private network, not for the public.
    public static func makeProbeServer(_ dependencies: ApplicationDependencies, for server: HTTPServer, port: Int, logger: Logger) -> HTTPServer {
        let groups = AccessGroups(identity: dependencies.identity, apiKeys: dependencies.apiKeys, rateLimiter: nil)
        var routes = EndpointRouter()
        HealthRoutes.register(on: &routes, groups, database: dependencies.database, metrics: server.metrics)
        var configuration = server.configuration
        configuration.port = port
        // Two event loops: /readyz waits on the database, and /healthz must not wait behind it.
        (configuration.threads, configuration.workers, configuration.queueLimit) = (2, 1, 8)
        (configuration.maxConnections, configuration.maxConnectionsPerIP) = (64, 16)
        (configuration.connectionTimeoutSeconds, configuration.headerDeadlineSeconds) = (10, 5)
        return HTTPServer(configuration: configuration, router: routes.router, logger: logger,
                          errorMapper: ErrorMapping.httpError(for:), errorStyle: ErrorMapping.styled(path:_:))
    }
}
