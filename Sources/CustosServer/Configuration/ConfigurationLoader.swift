import CustosCore
import CustosHTTP
import Foundation

/// A configuration problem, named precisely enough to fix it.
public struct ConfigurationError: Error, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Where a setting's value came from.
public enum SettingSource: Sendable, Equatable, CustomStringConvertible {
    case flag, environment, file(String), defaultValue

    public var description: String {
        switch self {
        case .flag: "flag"
        case .environment: "environment"
        case .file(let path): "file \(path)"
        case .defaultValue: "default"
        }
    }
}

/// Resolves `ServerConfiguration` with the precedence flags > `CUSTOS_*` environment >
/// config file (JSON) > defaults, and validates every value.
public struct ConfigurationLoader {
    public struct Resolved: Sendable {
        public var configuration: ServerConfiguration
        /// Raw values and where each came from, for the start-up print.
        public var values: [(setting: Setting, value: String, source: SettingSource)]

        /// One line per set value, secrets masked, e.g. `port=8080 (flag)`.
        public func describe() -> [String] {
            maskedValues().map { "\($0.key)=\($0.value)" }
        }

        /// Each set value with its source, secrets masked: `("port", "8080 (flag)")`.
        public func maskedValues() -> [(key: String, value: String)] {
            values.map { entry in
                let shown = entry.setting.isSecret ? mask(entry.value) : entry.value
                return (entry.setting.key, "\(shown) (\(entry.source))")
            }
        }

        private func mask(_ value: String) -> String {
            // A database URL shows its scheme, host and database, never a password (in the user
            // part or the query) or any other parameter.
            if value.hasPrefix("postgres"), let url = URLComponents(string: value) {
                var shown = URLComponents()
                shown.scheme = url.scheme
                shown.user = url.user
                shown.host = url.host
                shown.port = url.port
                shown.path = url.path
                if url.password != nil { shown.password = "****" }
                if url.query != nil { shown.query = "****" }
                return shown.string ?? "****"
            }
            return "****"
        }
    }

    public let settings: [Setting]

    public init(settings: [Setting] = Setting.all) {
        self.settings = settings
    }

    /// - Parameters:
    ///   - flags: values given as flags, keyed by setting key (`"port": "0"`).
    ///   - environment: the process environment.
    public func load(flags: [String: String], environment: [String: String]) throws -> Resolved {
        var raw: [String: (String, SettingSource)] = [:]
        let configPath = flags[Setting.config.key] ?? environment[Setting.config.environmentVariable]
        if let configPath {
            for (key, value) in try readFile(configPath) { raw[key] = (value, .file(configPath)) }
        }
        for setting in settings {
            if let value = environment[setting.environmentVariable] { raw[setting.key] = (value, .environment) }
            if let value = flags[setting.key] { raw[setting.key] = (value, .flag) }
        }

        var configuration = ServerConfiguration()
        var values: [(Setting, String, SettingSource)] = []
        for setting in settings {
            guard let (value, source) = raw[setting.key] else { continue }
            try apply(setting, value, source: source, to: &configuration)
            values.append((setting, value, source))
        }
        if configuration.development, raw[Setting.idvResultDetail.key] == nil { configuration.idv.resultDetailToApp = true }
        if case .everyDays = configuration.identity.passwordAtLogin {
            configuration.identity.passwordAtLogin = .everyDays(configuration.passwordPeriodicDays)
        }
        do {
            try configuration.idv.validate()
        } catch {
            throw ConfigurationError("invalid liveness settings: \(error.message)")
        }
        return Resolved(configuration: configuration, values: values)
    }

    private func readFile(_ path: String) throws -> [String: String] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError("cannot read config file \(path)")
        }
        guard let object = try? JSONDecoder().decode([String: FileValue].self, from: data) else {
            throw ConfigurationError("config file \(path) is not a JSON object of strings, numbers and booleans")
        }
        let known = Set(settings.map(\.key))
        var values: [String: String] = [:]
        for (key, value) in object {
            guard known.contains(key), key != Setting.config.key else {
                throw ConfigurationError("config file \(path): unknown key '\(key)'")
            }
            values[key] = value.text
        }
        return values
    }

    private func apply(_ setting: Setting, _ value: String, source: SettingSource, to c: inout ServerConfiguration) throws {
        func invalid(_ reason: String) -> ConfigurationError {
            ConfigurationError("invalid \(setting.key) (from \(source == .flag ? setting.flag : source == .environment ? setting.environmentVariable : source.description)): \(reason)")
        }
        switch setting.kind {
        case .integer(let range):
            guard let number = Int(value.trimmingCharacters(in: .whitespaces)), range.contains(number) else {
                throw invalid("'\(value)' is not an integer in \(range.lowerBound)...\(range.upperBound)")
            }
            assign(setting, integer: number, to: &c)
        case .boolean:
            switch value.lowercased() {
            case "1", "true", "yes", "on": assign(setting, boolean: true, to: &c)
            case "0", "false", "no", "off", "": assign(setting, boolean: false, to: &c)
            default: throw invalid("'\(value)' is not a boolean (true/false)")
            }
        case .choice(let choices):
            guard choices.contains(value.lowercased()) else {
                throw invalid("'\(value)' is not one of \(choices.joined(separator: ", "))")
            }
            assign(setting, string: value.lowercased(), to: &c)
        case .decimal(let range):
            guard let number = Double(value.trimmingCharacters(in: .whitespaces)), range.contains(number) else {
                throw invalid("'\(value)' is not a number in \(range.lowerBound)...\(range.upperBound)")
            }
            if setting == .matchThreshold { c.idv.matchThreshold = number }
        case .string:
            guard !value.isEmpty else { throw invalid("must not be empty") }
            if setting == .livenessActions {
                var actions: [LivenessAction] = []
                for name in value.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
                    guard let action = LivenessAction(rawValue: name) else {
                        throw invalid("'\(name)' is not one of \(LivenessAction.allCases.map(\.rawValue).joined(separator: ", "))")
                    }
                    if !actions.contains(action) { actions.append(action) }
                }
                guard !actions.isEmpty else { throw invalid("name at least one action") }
                c.idv.liveness.allowedActions = actions
                if actions.count == 1 { c.idv.liveness.actionsPerChallenge = 1 }
                return
            }
            if setting == .livenessPause {
                let bounds = value.split(separator: "-", maxSplits: 1).map { Double($0.trimmingCharacters(in: .whitespaces)) }
                guard let low = bounds.first ?? nil, let high = bounds.count == 2 ? bounds[1] : Optional(low),
                      low >= 0, high >= low, high <= 10 else {
                    throw invalid("'\(value)' is not MIN-MAX seconds with 0 <= MIN <= MAX <= 10 (or one number)")
                }
                c.idv.liveness.pauseRange = low...high
                return
            }
            if setting == .databaseURL, !(value.hasPrefix("postgres://") || value.hasPrefix("postgresql://")) {
                throw invalid("must start with postgres:// or postgresql://")
            }
            assign(setting, string: value, to: &c)
        }
    }

    private func assign(_ setting: Setting, integer: Int, to c: inout ServerConfiguration) {
        switch setting {
        case .port: c.http.port = integer
        case .threads: c.http.threads = integer
        case .workers: c.http.workers = integer
        case .queueLimit: c.http.queueLimit = integer
        case .maxBodyBytes: c.http.maxUploadBytes = integer
        case .maxJSONBodyBytes: c.http.maxBodyBytes = integer
        case .connectionTimeout: c.http.connectionTimeoutSeconds = integer
        case .maxConnections: c.http.maxConnections = integer
        case .maxConnectionsPerIP: c.http.maxConnectionsPerIP = integer
        case .shutdownGrace: c.http.shutdownGraceSeconds = Double(integer)
        case .databasePoolSize: c.databasePoolSize = integer
        case .maxAttempts: c.identity.maximumAttempts = Int64(integer)
        case .lockoutSeconds: c.identity.lockoutBase = TimeInterval(integer)
        case .passwordPeriodicDays: c.passwordPeriodicDays = integer
        case .passwordMaxAgeDays: c.identity.passwordMaximumAge = integer == 0 ? nil : TimeInterval(integer) * 86400
        case .passwordMinLength: c.identity.passwordMinimumLength = integer
        case .sessionIdleMinutes: c.identity.sessionIdleTimeout = TimeInterval(integer) * 60
        case .sessionLifetimeHours: c.identity.sessionLifetime = TimeInterval(integer) * 3600
        case .argon2MemoryKiB: c.argon2MemoryKiB = integer
        case .argon2Iterations: c.argon2Iterations = integer
        case .faceWorkers: c.faceWorkers = integer
        case .livenessActionsPerChallenge: c.idv.liveness.actionsPerChallenge = integer
        case .livenessMinFaceWidth: c.idv.liveness.minimumFaceWidth = Double(integer)
        case .livenessMaxFrames: c.idv.liveness.maximumFrames = integer
        case .reenrollmentWindow: c.idv.reenrollmentWindow = TimeInterval(integer)
        case .takeMemoryDays: c.idv.seenFrameMemory = TimeInterval(integer) * 86400
        case .documentRetentionDays: c.idv.documentRetention = TimeInterval(integer) * 86400
        default: break
        }
    }

    private func assign(_ setting: Setting, boolean: Bool, to c: inout ServerConfiguration) {
        if setting == .dev { c.development = boolean }
        if setting == .idv { c.idvEnabled = boolean }
        if setting == .idvResultDetail { c.idv.resultDetailToApp = boolean }
    }

    private func assign(_ setting: Setting, string: String, to c: inout ServerConfiguration) {
        switch setting {
        case .host: c.http.host = string
        case .dataDir: c.dataDirectory = string
        case .databaseURL: c.databaseURL = string
        case .masterKey: c.masterKey = string
        case .masterKeyFile: c.masterKeyFile = string
        case .previousMasterKeyFile: c.previousMasterKeyFile = string
        case .logLevel: c.logLevel = Logger.Level(name: string) ?? .info
        case .sqliteSynchronous: c.sqliteSynchronous = ServerConfiguration.SQLiteSynchronous(rawValue: string) ?? .full
        case .issuer: c.issuer = string
        case .idvAudience: c.idvAudience = string
        case .enrollment: c.idv.enrollment = EnrollmentAuthorization(rawValue: string) ?? .session
        case .passwordAtLogin:
            c.identity.passwordAtLogin = switch string {
            case "never": .never
            case "periodic": .everyDays(c.passwordPeriodicDays)
            default: .always
            }
        default: break
        }
    }
}

/// A scalar in the config file, kept as the text the other sources would give.
private struct FileValue: Decodable {
    let text: String

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let bool = try? container.decode(Bool.self) {
            text = bool ? "true" : "false"
        } else if let integer = try? container.decode(Int.self) {
            text = String(integer)
        } else if let number = try? container.decode(Double.self) {
            text = String(number)
        } else {
            text = try container.decode(String.self)
        }
    }
}
