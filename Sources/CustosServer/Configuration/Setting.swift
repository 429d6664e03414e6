import CustosCore

/// One configuration setting, known by three names: the config-file key (`data_dir`),
/// the flag (`--data-dir`) and the environment variable (`CUSTOS_DATA_DIR`).
public struct Setting: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case string
        case integer(ClosedRange<Int>)
        case boolean
        case choice([String])
        case decimal(ClosedRange<Double>)
    }

    /// The config-file key, snake_case.
    public let key: String
    public let kind: Kind
    public let help: String
    /// Masked when the configuration is printed.
    public let isSecret: Bool

    public init(_ key: String, _ kind: Kind, help: String, secret: Bool = false) {
        self.key = key
        self.kind = kind
        self.help = help
        self.isSecret = secret
    }

    public var flag: String { "--" + key.replacingOccurrences(of: "_", with: "-") }
    public var environmentVariable: String { "CUSTOS_" + key.uppercased() }
}

extension Setting {
    public static let host = Setting("host", .string, help: "address to listen on (default 127.0.0.1)")
    public static let port = Setting("port", .integer(0...65535), help: "port to listen on; 0 picks a free one (default 8080)")
    public static let dataDir = Setting("data_dir", .string, help: "directory for the SQLite database and the dev master key (default ./.custos)")
    public static let databaseURL = Setting("database_url", .string, help: "postgres://… to use PostgreSQL instead of SQLite", secret: true)
    public static let config = Setting("config", .string, help: "JSON configuration file")
    public static let dev = Setting("dev", .boolean, help: "development mode: generate and keep a master key in the data directory")
    public static let masterKey = Setting("master_key", .string, help: "master key, 32 bytes in base64 (prefer master_key_file)", secret: true)
    public static let masterKeyFile = Setting("master_key_file", .string, help: "file holding the base64 master key")
    public static let previousMasterKeyFile = Setting("previous_master_key_file", .string, help: "during a master key rotation: file holding the previous master key, which still opens what it sealed")
    public static let threads = Setting("threads", .integer(1...1024), help: "HTTP event-loop threads (default cores x 2)")
    public static let workers = Setting("workers", .integer(1...1024), help: "threads that run request handlers (default cores x 2)")
    public static let queueLimit = Setting("queue_limit", .integer(0...100_000), help: "requests that may wait for a worker before 503 server_busy (default 128)")
    public static let maxBodyBytes = Setting("max_body_bytes", .integer(1024...(1 << 30)), help: "largest upload accepted: selfie frames, document images (default 8388608)")
    public static let maxJSONBodyBytes = Setting("max_json_body_bytes", .integer(1024...(1 << 30)), help: "largest body of any other request (default 65536)")
    public static let connectionTimeout = Setting("connection_timeout", .integer(1...3600), help: "seconds before an idle connection is closed (default 30)")
    public static let maxConnections = Setting("max_connections", .integer(1...100_000), help: "connections open at once (default 1000)")
    public static let maxConnectionsPerIP = Setting("max_connections_per_ip", .integer(0...100_000), help: "connections open at once from one IP; 0 = no limit (default 128; raise it behind a reverse proxy)")
    public static let shutdownGrace = Setting("shutdown_grace", .integer(0...3600), help: "seconds to finish in-flight requests on shutdown (default 10)")
    public static let logLevel = Setting("log_level", .choice(["debug", "info", "warning", "error"]), help: "least severe log level written (default info)")
    public static let sqliteSynchronous = Setting("sqlite_synchronous", .choice(["full", "normal"]), help: "SQLite durability: full (default) or normal")
    public static let databasePoolSize = Setting("database_pool_size", .integer(1...256), help: "database connections (PostgreSQL) or SQLite readers (default 4)")

    public static let maxAttempts = Setting("max_attempts", .integer(1...100), help: "failed attempts (any factor) before a user is locked (default 5)")
    public static let lockoutSeconds = Setting("lockout_seconds", .integer(1...86400), help: "first lockout; each further one doubles, up to a day (default 300)")
    public static let passwordAtLogin = Setting("password_at_login", .choice(["always", "periodic", "never"]), help: "password with the device signature: always (default), periodic, never")
    public static let passwordPeriodicDays = Setting("password_periodic_days", .integer(1...3650), help: "with password_at_login=periodic: days between password logins (default 7)")
    public static let passwordMaxAgeDays = Setting("password_max_age_days", .integer(0...3650), help: "days before a password expires (status 110); 0 = never (default 90)")
    public static let passwordMinLength = Setting("password_min_length", .integer(4...128), help: "shortest password accepted (default 8)")
    public static let sessionIdleMinutes = Setting("session_idle_minutes", .integer(1...10080), help: "session idle timeout (default 30)")
    public static let sessionLifetimeHours = Setting("session_lifetime_hours", .integer(1...8760), help: "session absolute lifetime (default 12)")
    public static let argon2MemoryKiB = Setting("argon2_memory_kib", .integer(8...4_194_304), help: "Argon2id memory cost in KiB (default 65536)")
    public static let argon2Iterations = Setting("argon2_iterations", .integer(1...100), help: "Argon2id time cost (default 3)")

    public static let idv = Setting("idv", .boolean, help: "server biometrics (needs the face models; default true)")
    public static let faceWorkers = Setting("face_workers", .integer(1...256), help: "face engine instances, each analysing one image at a time (default: cores)")
    public static let matchThreshold = Setting("match_threshold", .decimal(0.05...1.5), help: "face descriptor distance at or below which faces match (default: the calibrated value)")
    public static let livenessActions = Setting("liveness_actions", .string, help: "actions a challenge draws from, comma-separated: blink, turn_left, turn_right, open_mouth (default: blink, turn_left, turn_right)")
    public static let livenessPause = Setting("liveness_pause", .string, help: "random pause before a challenge's first action, MIN-MAX seconds, e.g. 0.5-2 (default 0: none)")
    public static let livenessActionsPerChallenge = Setting("liveness_actions_per_challenge", .integer(1...5), help: "actions per liveness challenge (default 2)")
    public static let livenessMinFaceWidth = Setting("liveness_min_face_width", .integer(20...4096), help: "narrowest face accepted in a frame, pixels (default 60)")
    public static let livenessMaxFrames = Setting("liveness_max_frames", .integer(2...120), help: "most frames per upload (default 40)")
    public static let enrollment = Setting("enrollment", .choice(EnrollmentAuthorization.allCases.map(\.rawValue)), help: "who may enrol a first template: session (default) or grant (the relying party's single-use grant)")
    public static let reenrollmentWindow = Setting("reenrollment_window", .integer(0...86400), help: "seconds after a MATCHED authentication in which the session may replace the template (default 300)")
    public static let takeMemoryDays = Setting("take_memory_days", .integer(0...365), help: "days a submitted selfie take is remembered to refuse its replays; 0 turns the check off (benchmarks only; default 90)")
    public static let documentRetentionDays = Setting("document_retention_days", .integer(1...3650), help: "days a document scan's images are kept for the relying party's review (default 30); deleting the user deletes them at once")
    public static let issuer = Setting("issuer", .string, help: "this server's public base URL, the iss of what it signs (default http://HOST:PORT)")
    public static let idvAudience = Setting("idv_audience", .string, help: "the relying party signed IDV results are for (their aud; default custos)")
    public static let idvResultDetail = Setting("idv_result_detail", .boolean, help: "development: the app's IDV answer carries distance, threshold and liveness reason (default: on with --dev only)")

    /// Every setting `custos serve` understands, in the order help and the start-up print show them.
    public static let all: [Setting] = [
        .host, .port, .dataDir, .databaseURL, .config, .dev, .masterKey, .masterKeyFile, .previousMasterKeyFile, .threads, .workers, .queueLimit, .maxBodyBytes, .maxJSONBodyBytes,
        .connectionTimeout, .maxConnections, .maxConnectionsPerIP, .shutdownGrace, .logLevel, .sqliteSynchronous,
        .databasePoolSize, .maxAttempts, .lockoutSeconds, .passwordAtLogin, .passwordPeriodicDays, .passwordMaxAgeDays,
        .passwordMinLength, .sessionIdleMinutes, .sessionLifetimeHours, .argon2MemoryKiB, .argon2Iterations,
        .idv, .faceWorkers, .matchThreshold, .livenessActions, .livenessActionsPerChallenge, .livenessPause, .livenessMinFaceWidth, .livenessMaxFrames,
        .enrollment, .reenrollmentWindow, .takeMemoryDays, .documentRetentionDays, .issuer, .idvAudience, .idvResultDetail,
    ]
}
