import CustosCore
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

    private func apply(_ setting: Setting, _ value: String, source: SettingSource, to configuration: inout ServerConfiguration) throws {
        do {
            try setting.apply(value, to: &configuration)
        } catch let error as Setting.Invalid {
            let origin = source == .flag ? setting.flag : source == .environment ? setting.environmentVariable : source.description
            throw ConfigurationError("invalid \(setting.key) (from \(origin)): \(error.reason)")
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
