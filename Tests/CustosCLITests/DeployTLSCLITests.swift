import CustosTestSupport
import Foundation
import Testing

/// The shipped deployment recipe, run for real: Tests/Deploy/nginx_tls.sh puts deploy/nginx.conf
/// (Debian's nginx, a throwaway self-signed certificate) in front of `custos serve`, signs in and
/// uploads a selfie with this build's CLI over HTTPS, checks HSTS, the client address taken from
/// X-Forwarded-For and the per-address limit, and runs `systemd-analyze verify` on
/// deploy/custos.service. A missing nginx or openssl (the script's exit 2) skips it, and fails it
/// under `make test` (CUSTOS_REQUIRE_BROWSER=1), as the browser suite does.
@Suite(needsReleaseBuildAndFaces)
struct DeployTLSCLITests {
    @Test func theShippedNginxRecipeServesCustosOverTLS() throws {
        let script = SharedData.packageRoot.appendingPathComponent("Tests/Deploy/nginx_tls.sh").path
        let environment = CLI.cleanEnvironment().merging(["CUSTOS_SHARED_DATA": SharedData.root.path]) { _, new in new }
        let run = try ChildProcess.run(executable: "/bin/bash", arguments: [script, CLI.binary.path], environment: environment)
        let output = String(decoding: run.stdout, as: UTF8.self) + String(decoding: run.stderr, as: UTF8.self)
        print(output)
        if run.status == 2 && !TestEnvironment.browserRequired {
            print("DeployTLSCLITests: not run: \(output)")
            return
        }
        #expect(run.status == 0, "\(output)")
        #expect(output.contains(" passed, 0 failed\n"), "\(output)")
    }
}
