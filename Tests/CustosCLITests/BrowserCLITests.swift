import CustosTestSupport
import Foundation
import Testing

/// The web app in real Chromium: Tests/Browser/browser_flows.py drives it (selenium, a fake
/// camera fed from the liveness frames, a virtual WebAuthn authenticator) against a real
/// `custos serve`. Screenshots land in .build/test-output/browser. `scripts/run-tests.sh` runs
/// this suite alone, after the others, so the capture's timing does not compete with them.
@Suite(.serialized, .enabled(if: (SharedData.isAvailable && OutsideClients.isAvailable) || TestEnvironment.browserRequired,
                             Comment(rawValue: SharedData.missingMessage + "; " + OutsideClients.missingMessage)))
struct BrowserCLITests {
    @Test func everyFlowOfTheWebAppWorksInChromium() throws {
        let port = try NotificationCLITests().freePort()
        // localhost, not 127.0.0.1: WebAuthn refuses an IP address as the relying party's id.
        let base = "http://localhost:\(port)"
        let served = try IdentityCLITests.Served(extra: ["--port", String(port), "--issuer", base, "--liveness-actions", "blink"])
        defer { served.stop() }
        let output = SharedData.packageRoot.appendingPathComponent(".build/test-output/browser")
        let config: [String: Any] = [
            "base_url": base, "admin_key": served.adminKey, "rp_key": served.rpKey, "data_dir": SharedData.root.path, "out_dir": output.path,
        ]
        let configFile = CLI.temporaryDirectory() + "/browser.json"
        try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: configFile))
        let run = try OutsideClients.run("../Browser/browser_flows.py", [configFile])
        print(run.output)
        if run.status == 2 && !TestEnvironment.browserRequired {
            print("BrowserCLITests: not run: \(run.output)")
            return
        }
        #expect(run.status == 0, "\(run.output)\nserver log:\n\(served.serve.logLines.suffix(40).joined(separator: "\n"))")
        // The script prints the flows it runs ({"flows": [...]}, its own list, the only one) and
        // then each one's outcome ({"flow": ..., "passed": ...}), a JSON object a line; its other
        // lines (browser console, screenshots, tracebacks) are not JSON objects and are skipped.
        let lines = run.output.split(whereSeparator: \.isNewline).compactMap { line in
            try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        }
        let flows = lines.compactMap { $0["flows"] as? [String] }.first ?? []
        #expect(!flows.isEmpty, "browser_flows.py listed no flows")
        let passed = Set(lines.filter { $0["passed"] as? Bool == true }.compactMap { $0["flow"] as? String })
        for flow in flows {
            #expect(passed.contains(flow), "\(flow) did not pass")
        }
    }
}
