import CustosCore
import CustosHTTP
import Foundation

/// Everything `custos serve` needs, resolved from flags, environment and config file.
public struct ServerConfiguration: Sendable, Equatable {
    public enum SQLiteSynchronous: String, Sendable, Equatable, CaseIterable {
        case full, normal
    }

    public var http = HTTPServerConfiguration()
    public var dataDirectory = "./.custos"
    /// PostgreSQL instead of SQLite when set.
    public var databaseURL: String?
    public var development = false
    /// Base64 master key given directly (secret).
    public var masterKey: String?
    public var masterKeyFile: String?
    /// During a master key rotation, the key before the master key: it still opens what it sealed.
    public var previousMasterKeyFile: String?
    public var logLevel: Logger.Level = .info
    public var sqliteSynchronous: SQLiteSynchronous = .full
    public var databasePoolSize = 4
    public var identity = IdentityPolicy()
    /// Requests a minute to the authentication endpoints, per client address and per user.
    public var rateLimits = RateLimitPolicy()
    /// Argon2id cost: time (iterations) and memory (KiB).
    public var argon2Iterations = 3
    public var argon2MemoryKiB = 65536
    /// Server biometrics: on unless turned off (it needs the face models).
    public var idvEnabled = true
    public var idv = IDVPolicy()
    /// Step-up notifications (their `issuer` follows `resolvedIssuer`).
    public var notifications = NotificationPolicy()
    /// How webhooks are sent.
    public var webhooks = WebhookConfiguration()
    /// Seconds a CIBA client waits between polls of the token endpoint.
    public var cibaInterval = 5
    /// The OpenID Connect provider's lifetimes (its `issuer` follows `resolvedIssuer`).
    public var oidc = OIDCPolicy(issuer: "")
    /// `iss` of what the server signs; nil: `http://host:port`.
    public var issuer: String?
    /// The web app's directory; nil: the files built with the server; `none`: no web app.
    public var webRoot: String?
    /// `aud` of signed IDV results.
    public var idvAudience = "custos"
    /// Face engine instances; nil: one per core.
    public var faceWorkers: Int?
    /// The longest a request may expect to wait for the face engine before 503 `server_busy`.
    public var faceQueueSeconds = 10
    /// A second port answering only `/healthz`, `/readyz` and `/metrics` (nil: none).
    public var probePort: Int?
    /// Days between password logins with `password_at_login=periodic`.
    var passwordPeriodicDays = 7

    public init() {}

    /// The SQLite file used when no database URL is set.
    public var sqlitePath: String { (dataDirectory as NSString).appendingPathComponent("custos.sqlite") }
    /// The issuer the server signs as.
    public var resolvedIssuer: String { issuer ?? "http://\(http.host):\(http.port)" }
    /// Where `--dev` keeps its generated master key.
    public var developmentKeyPath: String { (dataDirectory as NSString).appendingPathComponent("dev-master-key") }
}
