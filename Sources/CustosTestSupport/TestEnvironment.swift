import Foundation

/// Shared by the test targets only: what the environment offers tests (set by
/// scripts/with-postgres.sh) and a child-process runner.
/// What the environment offers these tests (set by scripts/with-postgres.sh).
public enum TestEnvironment {
    private static var variables: [String: String] { ProcessInfo.processInfo.environment }

    /// libpq URI of a scratch database; nil when no PostgreSQL is available.
    public static var postgresURL: String? {
        guard let url = variables["CUSTOS_TEST_DATABASE_URL"], !url.isEmpty else { return nil }
        return url
    }

    /// `CUSTOS_REQUIRE_POSTGRES=1` turns a missing PostgreSQL into a failure instead of a skip.
    public static var postgresRequired: Bool { variables["CUSTOS_REQUIRE_POSTGRES"] == "1" }

    /// `CUSTOS_TEST_PG_OUTAGE=1`: no other test uses the scratch server now, so a test may
    /// stop and restart it.
    /// `CUSTOS_REQUIRE_FACES=1` (set by `make test`): the shared data and the face models
    /// must be there, so a missing `../shared` fails the run instead of skipping every face test.
    public static var facesRequired: Bool { variables["CUSTOS_REQUIRE_FACES"] == "1" }

    /// `CUSTOS_REQUIRE_BROWSER=1` (set by `make test`): Chromium, chromium-driver and ffmpeg must be
    /// there, so the browser tests fail instead of skipping when they are missing.
    public static var browserRequired: Bool { variables["CUSTOS_REQUIRE_BROWSER"] == "1" }

    /// How long a test's HTTP client waits for an answer before it calls the call lost. Under
    /// make test's load on two cores (every suite at once, one face engine for the whole
    /// process) an answer can wait minutes for a thread; a hang is what the suites' time limits
    /// catch, not this.
    public static let requestTimeout: TimeInterval = 300

    /// `CUSTOS_REQUIRE_CLIENTS=1` (set by `make test`): the Python test clients (.custos/venv)
    /// must be there, so the tests that use them fail instead of skipping when they are missing.
    public static var clientsRequired: Bool { variables["CUSTOS_REQUIRE_CLIENTS"] == "1" }

    public static var outageAllowed: Bool { variables["CUSTOS_TEST_PG_OUTAGE"] == "1" }

    /// scripts/pg-ctl.sh, to stop and start the scratch cluster.
    public static var pgCtl: String? {
        guard let path = variables["CUSTOS_TEST_PG_CTL"], !path.isEmpty else { return nil }
        return path
    }

    /// Runs `CUSTOS_TEST_PG_CTL start|stop|status`; throws when it fails.
    public static func controlPostgres(_ action: String) throws {
        guard let pgCtl else { throw ToolFailure(description: "CUSTOS_TEST_PG_CTL is not set") }
        let status = try runTool(pgCtl, [action])
        guard status == 0 else { throw ToolFailure(description: "\(pgCtl) \(action) exited with \(status)") }
    }
}

public struct ToolFailure: Error, CustomStringConvertible {
    public let description: String
}
