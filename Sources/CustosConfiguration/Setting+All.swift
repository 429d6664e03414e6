import CustosCore
import CustosHTTP
import Foundation

extension Setting {
    public static let host = Setting.text("host", help: "address to listen on (default 127.0.0.1)") { $0.http.host = $1 }
    public static let port = Setting.integer("port", 0...65535, help: "port to listen on; 0 picks a free one (default 8080)") { $0.http.port = $1 }
    public static let dataDir = Setting.text("data_dir", help: "directory for the SQLite database and the dev master key (default ./.custos)") { $0.dataDirectory = $1 }
    public static let databaseURL = Setting.text("database_url", help: "postgres://… to use PostgreSQL instead of SQLite", secret: true, parse: { text in
        guard text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") else { throw Invalid(reason: "must start with postgres:// or postgresql://") }
        return text
    }, apply: { $0.databaseURL = $1 })
    /// Read before every other setting (it names the file they may come from); nothing to apply.
    public static let config = Setting.text("config", help: "JSON configuration file") { _, _ in }
    public static let dev = Setting.boolean("dev", help: "development mode: generate and keep a master key in the data directory") { $0.development = $1 }
    public static let masterKey = Setting.text("master_key", help: "master key, 32 bytes in base64 (prefer master_key_file)", secret: true) { $0.masterKey = $1 }
    public static let masterKeyFile = Setting.text("master_key_file", help: "file holding the base64 master key") { $0.masterKeyFile = $1 }
    public static let previousMasterKeyFile = Setting.text("previous_master_key_file", help: "during a master key rotation: file holding the previous master key, which still opens what it sealed") { $0.previousMasterKeyFile = $1 }
    public static let probePort = Setting.integer("probe_port", 0...65535, help: "a second port that answers only /healthz, /readyz and /metrics, for probes when the main one is saturated; 0 picks a free one (default: none)") { $0.probePort = $1 }
    public static let threads = Setting.integer("threads", 1...1024, help: "HTTP event-loop threads (default cores x 2)") { $0.http.threads = $1 }
    public static let workers = Setting.integer("workers", 1...1024, help: "threads that run request handlers (default cores x 2)") { $0.http.workers = $1 }
    public static let queueLimit = Setting.integer("queue_limit", 0...100_000, help: "requests that may wait for a worker before 503 server_busy (default 128)") { $0.http.queueLimit = $1 }
    public static let maxBodyBytes = Setting.integer("max_body_bytes", 1024...(1 << 30), help: "largest upload accepted: selfie frames, document images (default 8388608)") { $0.http.maxUploadBytes = $1 }
    public static let uploadMemoryMiB = Setting.integer("upload_memory_mib", 8...65536, help: "memory all uploads being received may hold at once; past it 503 server_busy (default 256)") { $0.http.uploadMemoryBytes = $1 << 20 }
    public static let uploadMemoryPerClientMiB = Setting.integer("upload_memory_per_client_mib", 0...65536, help: "memory one client address's uploads being received may hold; past it 429 too_many_uploads; 0 = no limit (default 32)") { $0.http.uploadMemoryPerCallerBytes = $1 << 20 }
    public static let maxJSONBodyBytes = Setting.integer("max_json_body_bytes", 1024...(1 << 30), help: "largest body of any other request (default 65536)") { $0.http.maxBodyBytes = $1 }
    public static let connectionTimeout = Setting.integer("connection_timeout", 1...3600, help: "seconds before an idle connection is closed (default 30)") { $0.http.connectionTimeoutSeconds = $1 }
    public static let maxConnections = Setting.integer("max_connections", 1...100_000, help: "connections open at once (default 1000)") { $0.http.maxConnections = $1 }
    public static let maxConnectionsPerIP = Setting.integer("max_connections_per_ip", 0...100_000, help: "connections open at once from one IP; 0 = no limit (default 128; raise it behind a reverse proxy)") { $0.http.maxConnectionsPerIP = $1 }
    public static let requestDeadline = Setting.integer("request_deadline", 1...3600, help: "seconds in which a request's body must arrive; a slower one is cut off (default 60)") { $0.http.requestDeadlineSeconds = $1 }
    public static let trustedProxies = Setting.text("trusted_proxies", help: "reverse proxies whose X-Forwarded-For names the client, comma-separated addresses (default: none)", parse: { text in
        try Set(text.split(separator: ",").map { item in
            guard let address = RemoteAddress(parsing: item) else { throw Invalid(reason: "'\(item)' is not an IP address") }
            return address
        })
    }, apply: { $0.http.trustedProxies = $1 })
    public static let rateLimitPerIP = Setting.integer("rate_limit_per_ip", 0...1_000_000, help: "requests a minute from one client address to sign-in, password change and IDV uploads; 0 = no limit (default 300)") { $0.rateLimits.perClient = $1 }
    public static let rateLimitPerUser = Setting.integer("rate_limit_per_user", 0...1_000_000, help: "requests a minute of one user to password change and IDV uploads; 0 = no limit (default 30)") { $0.rateLimits.perUser = $1 }
    public static let shutdownGrace = Setting.integer("shutdown_grace", 0...3600, help: "seconds to finish in-flight requests on shutdown (default 10)") { $0.http.shutdownGraceSeconds = Double($1) }
    public static let logLevel = Setting.choice("log_level", named: { (level: Logger.Level) in level.name }, help: "least severe log level written (default info)") { $0.logLevel = $1 }
    public static let sqliteSynchronous = Setting.choice("sqlite_synchronous", named: { (mode: ServerConfiguration.SQLiteSynchronous) in mode.rawValue }, help: "SQLite durability: full (default) or normal") { $0.sqliteSynchronous = $1 }
    public static let databasePoolSize = Setting.integer("database_pool_size", 1...256, help: "database connections (PostgreSQL) or SQLite readers (default 4)") { $0.databasePoolSize = $1 }

    public static let maxAttempts = Setting.integer("max_attempts", 1...100, help: "failed attempts of one factor (credentials, or biometrics) before a user is locked (default 5)") { $0.identity.maximumAttempts = Int64($1) }
    public static let attemptLeaseSeconds = Setting.integer("attempt_lease_seconds", 5...3600, help: "longest an attempt taken for a try being judged is held: a process killed mid-try gives it back after this (default 120)") { $0.identity.attemptLease = TimeInterval($1) }
    public static let lockoutSeconds = Setting.integer("lockout_seconds", 1...86400, help: "first lockout; each further one doubles, up to a day (default 300)") { $0.identity.lockoutBase = TimeInterval($1) }
    /// `periodic` takes its days from `password_periodic_days` once every setting is read.
    public static let passwordAtLogin = Setting.choice("password_at_login", named: { (choice: PasswordAtLoginChoice) in choice.rawValue }, help: "password with the device signature: always (default), periodic, never") {
        $0.identity.passwordAtLogin = switch $1 {
        case .always: .always
        case .periodic: .everyDays($0.passwordPeriodicDays)
        case .never: .never
        }
    }
    public static let passwordPeriodicDays = Setting.integer("password_periodic_days", 1...3650, help: "with password_at_login=periodic: days between password logins (default 7)") { $0.passwordPeriodicDays = $1 }
    public static let passwordMaxAgeDays = Setting.integer("password_max_age_days", 0...3650, help: "days before a password expires (status 110); 0 = never (default 90)") { $0.identity.passwordMaximumAge = $1 == 0 ? nil : TimeInterval($1) * 86400 }
    public static let passwordMinLength = Setting.integer("password_min_length", 4...128, help: "shortest password accepted (default 8)") { $0.identity.passwordMinimumLength = $1 }
    public static let sessionIdleMinutes = Setting.integer("session_idle_minutes", 1...10080, help: "session idle timeout (default 30)") { $0.identity.sessionIdleTimeout = TimeInterval($1) * 60 }
    public static let sessionLifetimeHours = Setting.integer("session_lifetime_hours", 1...8760, help: "session absolute lifetime (default 12)") { $0.identity.sessionLifetime = TimeInterval($1) * 3600 }
    public static let argon2MemoryKiB = Setting.integer("argon2_memory_kib", 8...4_194_304, help: "Argon2id memory cost in KiB (default 65536)") { $0.argon2MemoryKiB = $1 }
    public static let argon2Iterations = Setting.integer("argon2_iterations", 1...100, help: "Argon2id time cost (default 3)") { $0.argon2Iterations = $1 }

    public static let idv = Setting.boolean("idv", help: "server biometrics (needs the face models; default true)") { $0.idvEnabled = $1 }
    public static let faceWorkers = Setting.integer("face_workers", 1...256, help: "face engine instances, each analysing one image at a time (default: cores)") { $0.faceWorkers = $1 }
    public static let headerDeadline = Setting.integer("header_deadline", 1...3600, help: "seconds in which a request's headers must arrive from the connection's opening (after an answer: the longer of this and connection_timeout); a slower client is cut off (default 30)") { $0.http.headerDeadlineSeconds = $1 }
    public static let faceQueueSeconds = Setting.integer("face_queue_seconds", 1...3600, help: "the longest a selfie or document may expect to wait for the face engine before 503 server_busy (default 10)") { $0.faceQueueSeconds = $1 }
    public static let matchThreshold = Setting.decimal("match_threshold", 0.05...1.5, help: "face descriptor distance at or below which faces match (default: the calibrated value)") { $0.idv.matchThreshold = $1 }
    /// One action alone makes one-action challenges (no action twice in a row).
    public static let livenessActions = Setting.text("liveness_actions", help: "actions a challenge draws from, comma-separated: blink, turn_left, turn_right, open_mouth (default: blink, turn_left, turn_right)", parse: livenessActionList) {
        $0.idv.liveness.allowedActions = $1
        if $1.count == 1 { $0.idv.liveness.actionsPerChallenge = 1 }
    }
    public static let livenessPause = Setting.text("liveness_pause", help: "random pause before a challenge's first action, MIN-MAX seconds, e.g. 0.5-2 (default 0: none)", parse: secondsRange) { $0.idv.liveness.pauseRange = $1 }
    public static let livenessActionsPerChallenge = Setting.integer("liveness_actions_per_challenge", 1...5, help: "actions per liveness challenge (default 2)") { $0.idv.liveness.actionsPerChallenge = $1 }
    public static let livenessMinFaceWidth = Setting.integer("liveness_min_face_width", 20...4096, help: "narrowest face accepted in a frame, pixels (default 60)") { $0.idv.liveness.minimumFaceWidth = Double($1) }
    public static let livenessMaxFrames = Setting.integer("liveness_max_frames", 2...120, help: "most frames per upload (default 40)") { $0.idv.liveness.maximumFrames = $1 }
    public static let enrollment = Setting.choice("enrollment", named: { (who: EnrollmentAuthorization) in who.rawValue }, help: "who may enrol a first template: session (default) or grant (the relying party's single-use grant)") { $0.idv.enrollment = $1 }
    public static let reenrollmentWindow = Setting.integer("reenrollment_window", 0...86400, help: "seconds after a MATCHED authentication in which the session may replace the template (default 300)") { $0.idv.reenrollmentWindow = TimeInterval($1) }
    public static let takeMemoryDays = Setting.integer("take_memory_days", 0...365, help: "days a submitted selfie take is remembered to refuse its replays; 0 turns the check off (benchmarks only; default 90)") { $0.idv.seenFrameMemory = TimeInterval($1) * 86400 }
    public static let documentRetentionDays = Setting.integer("document_retention_days", 1...3650, help: "days a document scan's images are kept for the relying party's review (default 30); deleting the user deletes them at once") { $0.idv.documentRetention = TimeInterval($1) * 86400 }
    public static let issuer = Setting.text("issuer", help: "this server's public base URL, the iss of what it signs (default http://HOST:PORT)") { $0.issuer = $1 }
    public static let idvAudience = Setting.text("idv_audience", help: "the aud of signed IDV results about users created without an API key (default custos)") { $0.idvAudience = $1 }
    /// Unset, it follows `dev` (see `ConfigurationLoader`).
    public static let idvResultDetail = Setting.boolean("idv_result_detail", help: "development: the app's IDV answer carries distance, threshold and liveness reason (default: on with --dev only)") { $0.idv.resultDetailToApp = $1 }

    public static let notifyMaxPendingPerUser = Setting.integer("notify_max_pending_per_user", 1...1000, help: "pending notifications one user may have at once; more is 429 (default 5)") { $0.notifications.maximumPendingPerUser = $1 }
    public static let notifyMaxPendingPerKey = Setting.integer("notify_max_pending_per_key", 1...10_000_000, help: "pending notifications one API key may have at once; more is 429 (default 10000)") { $0.notifications.maximumPendingPerKey = $1 }
    public static let notifyAppDefinedLevel = Setting.boolean("notify_app_defined_level", help: "accept notification actions of auth level 2, which the app defines (default off)") { $0.notifications.allowsAppDefinedLevel = $1 }
    public static let webhookTimeout = Setting.integer("webhook_timeout", 1...300, help: "seconds a webhook delivery may take in all (default 10)") { $0.webhooks.totalTimeout = TimeInterval($1) }
    public static let webhookConnectTimeout = Setting.integer("webhook_connect_timeout", 1...60, help: "seconds to connect to a webhook receiver (default 5)") { $0.webhooks.connectTimeout = TimeInterval($1) }
    public static let webhookMaxAttempts = Setting.integer("webhook_max_attempts", 1...100, help: "webhook attempts before a delivery is marked failed (default 8)") { $0.notifications.webhookMaximumAttempts = $1 }
    public static let webhookBackoff = Setting.integer("webhook_backoff_ms", 10...3_600_000, help: "delay before a webhook's first retry, doubling after each (default 2000)") { $0.notifications.webhookBackoff = TimeInterval($1) / 1000 }
    public static let webhookAllowPrivate = Setting.boolean("webhook_allow_private", help: "accept callback URLs on private, loopback and link-local addresses (default off: no requests into the operator's network)") { $0.webhooks.allowsPrivateAddresses = $1 }

    public static let notifyRetentionDays = Setting.integer("notify_retention_days", 1...3650, help: "days answered and expired notifications, their signed results and webhook deliveries are kept (default 90)") { $0.notifications.retention = TimeInterval($1) * 86400 }
    public static let cibaInterval = Setting.integer("ciba_interval", 1...60, help: "seconds a CIBA client waits between polls of the token endpoint; faster is slow_down (default 5)") { $0.cibaInterval = $1 }

    public static let passwordRegistration = Setting.boolean("password_registration", help: "let a new device of an active user be bound with the password alone (the sign-in fallback); such a device proves the password only (acr 1) until a registration code confirms it (default off: registration codes and approval on a bound device)") { $0.identity.passwordRegistration = $1 }
    public static let deviceProbationHours = Setting.integer("device_probation_hours", 0...8760, help: "hours a device bound or confirmed without another bound device's approval (registration code, password, face match) may not change the password, unbind or approve devices, end other sessions, change the face template or add a passkey (default 72; 0: none)") { $0.identity.probation = TimeInterval($1) * 3600 }
    public static let passwordRegistrationFailures = Setting.integer("password_registration_failures", 1...1000, help: "wrong passwords at password registration for one user, from all addresses together, before it closes for that user until a registration code, an approval or an unlock (default 10)") { $0.identity.passwordRegistrationFailures = Int64($1) }
    public static let oidcCodeLifetime = Setting.integer("oidc_code_lifetime", 1...600, help: "seconds an OpenID authorization code may wait for its exchange (default 60)") { $0.oidc.codeLifetime = TimeInterval($1) }
    public static let oidcAccessTokenLifetime = Setting.integer("oidc_access_token_lifetime", 60...86400, help: "seconds OpenID access and ID tokens live (default 300)") { $0.oidc.accessTokenLifetime = $1; $0.oidc.idTokenLifetime = $1 }
    public static let oidcRefreshTokenDays = Setting.integer("oidc_refresh_token_days", 1...365, help: "days an OpenID refresh token lives unused; each refresh rotates it (default 30)") { $0.oidc.refreshTokenLifetime = TimeInterval($1) * 86400 }
    public static let webRoot = Setting.text("web_root", help: "directory of the web app's files served at /app/ (default: the files built with the server; none: no web app)") { $0.webRoot = $1 }

    /// Every setting `custos serve` understands, in the order help and the start-up print show
    /// them, which is also the order they are applied in (`liveness_actions` before
    /// `liveness_actions_per_challenge`, so an explicit count wins).
    public static let all: [Setting] = [
        .host, .port, .probePort, .dataDir, .databaseURL, .config, .dev, .masterKey, .masterKeyFile, .previousMasterKeyFile, .threads, .workers, .queueLimit, .maxBodyBytes, .uploadMemoryMiB, .uploadMemoryPerClientMiB, .maxJSONBodyBytes,
        .connectionTimeout, .maxConnections, .maxConnectionsPerIP, .requestDeadline, .headerDeadline, .trustedProxies, .rateLimitPerIP, .rateLimitPerUser, .shutdownGrace, .logLevel, .sqliteSynchronous,
        .databasePoolSize, .maxAttempts, .attemptLeaseSeconds, .lockoutSeconds, .passwordAtLogin, .passwordPeriodicDays, .passwordMaxAgeDays,
        .passwordMinLength, .sessionIdleMinutes, .sessionLifetimeHours, .argon2MemoryKiB, .argon2Iterations,
        .idv, .faceWorkers, .faceQueueSeconds, .matchThreshold, .livenessActions, .livenessActionsPerChallenge, .livenessPause, .livenessMinFaceWidth, .livenessMaxFrames,
        .enrollment, .reenrollmentWindow, .takeMemoryDays, .documentRetentionDays, .issuer, .idvAudience, .idvResultDetail,
        .notifyMaxPendingPerUser, .notifyMaxPendingPerKey, .notifyAppDefinedLevel, .webhookTimeout, .webhookConnectTimeout,
        .webhookMaxAttempts, .webhookBackoff, .webhookAllowPrivate, .notifyRetentionDays, .cibaInterval,
        .passwordRegistration, .passwordRegistrationFailures, .deviceProbationHours, .oidcCodeLifetime, .oidcAccessTokenLifetime, .oidcRefreshTokenDays, .webRoot,
    ]
}

/// The values of `password_at_login`; `IdentityPolicy.PasswordAtLogin` carries the days of `periodic`.
enum PasswordAtLoginChoice: String, Sendable, CaseIterable {
    case always, periodic, never
}
