import CustosConfiguration
import CustosCore
import CustosHTTP
import Foundation
import Testing

@Suite struct ConfigurationLoaderTests {
    private func writeConfig(_ json: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("custos-config-\(UUID().uuidString).json").path
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func defaults() throws {
        let resolved = try ConfigurationLoader().load(flags: [:], environment: [:])
        #expect(resolved.configuration.http.host == "127.0.0.1")
        #expect(resolved.configuration.http.port == 8080)
        #expect(resolved.configuration.http.maxUploadBytes == 8 * 1024 * 1024)
        #expect(resolved.configuration.http.maxBodyBytes == 64 * 1024)
        #expect(resolved.configuration.databaseURL == nil)
        #expect(resolved.configuration.development == false)
        #expect(resolved.configuration.sqlitePath == "./.custos/custos.sqlite")
    }

    @Test func flagsBeatEnvironmentWhichBeatsTheFile() throws {
        let file = try writeConfig(#"{"port": 7000, "host": "0.0.0.0", "threads": 3, "dev": true}"#)
        let resolved = try ConfigurationLoader().load(
            flags: ["config": file, "port": "9000"],
            environment: ["CUSTOS_PORT": "8000", "CUSTOS_HOST": "::1"])
        #expect(resolved.configuration.http.port == 9000)
        #expect(resolved.configuration.http.host == "::1")
        #expect(resolved.configuration.http.threads == 3)
        #expect(resolved.configuration.development)
        #expect(resolved.describe().contains("port=9000 (flag)"))
        #expect(resolved.describe().contains("host=::1 (environment)"))
        #expect(resolved.describe().contains("threads=3 (file \(file))"))
    }

    @Test func livenessAndMatchSettings() throws {
        let file = try writeConfig(#"{"liveness_actions": "blink, turn_left", "match_threshold": 0.45, "idv": false}"#)
        let resolved = try ConfigurationLoader().load(flags: ["config": file, "liveness_actions_per_challenge": "1"], environment: [:])
        let idv = resolved.configuration.idv
        #expect(idv.liveness.allowedActions == [.blink, .turnLeft] && idv.liveness.actionsPerChallenge == 1)
        #expect(idv.matchThreshold == 0.45 && !resolved.configuration.idvEnabled)
        #expect(resolved.configuration.idv.liveness.allowedActions.count == 2)
        let single = try ConfigurationLoader().load(flags: ["liveness_actions": "blink"], environment: [:])
        #expect(single.configuration.idv.liveness.actionsPerChallenge == 1)

        #expect(throws: ConfigurationError.self) { try ConfigurationLoader().load(flags: ["liveness_actions": "smile"], environment: [:]) }
        #expect(throws: ConfigurationError.self) { try ConfigurationLoader().load(flags: ["match_threshold": "two"], environment: [:]) }
        #expect(throws: ConfigurationError.self) { try ConfigurationLoader().load(flags: ["match_threshold": "3"], environment: [:]) }
        // One action cannot fill a two-action challenge (no action twice in a row).
        #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader().load(flags: ["liveness_actions": "blink", "liveness_actions_per_challenge": "2"], environment: [:])
        }
    }

    @Test func configFileCanComeFromTheEnvironment() throws {
        let file = try writeConfig(#"{"log_level": "debug"}"#)
        let resolved = try ConfigurationLoader().load(flags: [:], environment: ["CUSTOS_CONFIG": file])
        #expect(resolved.configuration.logLevel == .debug)
    }

    @Test func invalidValuesNameTheKeyAndItsSource() {
        #expect(throws: ConfigurationError("invalid port (from CUSTOS_PORT): 'eighty' is not an integer in 0...65535")) {
            try ConfigurationLoader().load(flags: [:], environment: ["CUSTOS_PORT": "eighty"])
        }
        #expect(throws: ConfigurationError("invalid port (from --port): '70000' is not an integer in 0...65535")) {
            try ConfigurationLoader().load(flags: ["port": "70000"], environment: [:])
        }
        #expect(throws: ConfigurationError("invalid log_level (from --log-level): 'loud' is not one of debug, info, warning, error")) {
            try ConfigurationLoader().load(flags: ["log_level": "loud"], environment: [:])
        }
        #expect(throws: ConfigurationError("invalid database_url (from --database-url): must start with postgres:// or postgresql://")) {
            try ConfigurationLoader().load(flags: ["database_url": "mysql://x"], environment: [:])
        }
    }

    @Test func configFileProblemsAreNamed() throws {
        let unknown = try writeConfig(#"{"prot": 1}"#)
        #expect(throws: ConfigurationError("config file \(unknown): unknown key 'prot'")) {
            try ConfigurationLoader().load(flags: ["config": unknown], environment: [:])
        }
        let notObject = try writeConfig("[1]")
        #expect(throws: ConfigurationError.self) { try ConfigurationLoader().load(flags: ["config": notObject], environment: [:]) }
        let wrongType = try writeConfig(#"{"port": "abc"}"#)
        #expect(throws: ConfigurationError("invalid port (from file \(wrongType)): 'abc' is not an integer in 0...65535")) {
            try ConfigurationLoader().load(flags: ["config": wrongType], environment: [:])
        }
        #expect(throws: ConfigurationError("cannot read config file /nonexistent/custos.json")) {
            try ConfigurationLoader().load(flags: ["config": "/nonexistent/custos.json"], environment: [:])
        }
    }

    @Test func secretsAreMaskedWhenPrinted() throws {
        let resolved = try ConfigurationLoader().load(
            flags: ["database_url": "postgresql://custos:hunter2@db.internal:5432/custos"],
            environment: ["CUSTOS_MASTER_KEY": "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3I="])
        let printed = resolved.describe().joined(separator: "\n")
        #expect(!printed.contains("hunter2"))
        #expect(!printed.contains("c2VjcmV0"))
        #expect(printed.contains("db.internal"))
        #expect(printed.contains("master_key=**** (environment)"))
    }

    /// libpq also takes the password (and a client key's passphrase) as query parameters.
    @Test func aPasswordInTheDatabaseURLQueryIsMasked() throws {
        let resolved = try ConfigurationLoader().load(
            flags: ["database_url": "postgres://custos@db.internal/custos?password=hunter2&sslpassword=s3cret"],
            environment: ["CUSTOS_MASTER_KEY": "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3I="])
        let printed = resolved.describe().joined(separator: "\n")
        #expect(!printed.contains("hunter2") && !printed.contains("s3cret"))
        #expect(printed.contains("postgres://custos@db.internal/custos?****"))
    }

    @Test func rateLimitsDeadlineAndTrustedProxies() throws {
        let defaults = try ConfigurationLoader().load(flags: [:], environment: [:]).configuration
        #expect(defaults.rateLimits == RateLimitPolicy(perClient: 300, perUser: 30, window: 60))
        #expect(defaults.http.requestDeadlineSeconds == 60 && defaults.http.trustedProxies.isEmpty)
        let set = try ConfigurationLoader().load(
            flags: ["rate_limit_per_ip": "0", "request_deadline": "20"],
            environment: ["CUSTOS_RATE_LIMIT_PER_USER": "5", "CUSTOS_TRUSTED_PROXIES": "10.0.0.2, ::1"]).configuration
        #expect(set.rateLimits.perClient == 0 && set.rateLimits.perUser == 5 && set.http.requestDeadlineSeconds == 20)
        #expect(set.http.trustedProxies == [RemoteAddress(parsing: "10.0.0.2")!, RemoteAddress(parsing: "::1")!])
        #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader().load(flags: ["trusted_proxies": "proxy.internal"], environment: [:])
        }
    }
}
