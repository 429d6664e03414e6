import CustosTestSupport
import Foundation
import Testing

/// API fuzzing in make test: schemathesis (Tests/Clients/api_fuzz.py) sends a bounded number of
/// generated requests, valid and invalid, to every operation of openapi.yaml on a real
/// `custos serve`, with an admin key, a relying party's key and a user's session, and checks each
/// answer against the document: no server error, a declared status, content type, schema and
/// headers. `bench/fuzz-api.sh` runs it longer.
@Suite(.enabled(if: OutsideClients.shouldRun, Comment(rawValue: OutsideClients.missingMessage)))
struct APIFuzzCLITests {
    @Test func everyOperationAnswersAsOpenAPIDeclares() throws {
        // Without the sign-in limits: past them the run's own activations would answer 429.
        let served = try IdentityCLITests.Served(extra: ["--rate-limit-per-ip", "0", "--rate-limit-per-user", "0", "--idv=false"])
        defer { served.stop() }
        let config: [String: Any] = [
            "base_url": served.server, "admin_key": served.adminKey, "rp_key": served.rpKey,
            "openapi": SharedData.packageRoot.appendingPathComponent("openapi.yaml").path, "max_examples": 5, "seed": 20261202,
            "request_timeout": TestEnvironment.requestTimeout,
        ]
        let configFile = CLI.temporaryDirectory() + "/api-fuzz.json"
        try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: configFile))
        let run = try OutsideClients.run("api_fuzz.py", [configFile])
        print(run.output)
        #expect(run.status == 0, "\(run.output)\nserver log:\n\(served.serve.logLines.suffix(20).joined(separator: "\n"))")
        #expect(run.output.contains(" 0 failures"), "\(run.output)")
    }
}
