import CustosConfiguration
import CustosTestSupport
import Foundation
import Testing

/// The example configuration under deploy/ is one the server accepts, as written.
@Suite struct DeploymentFilesTests {
    @Test func theExampleConfigurationLoads() throws {
        let path = SharedData.packageRoot.appendingPathComponent("deploy/custos.json").path
        let resolved = try ConfigurationLoader().load(flags: ["config": path], environment: [:])
        #expect(resolved.configuration.resolvedIssuer == "https://auth.example.com")
        #expect(resolved.configuration.idvAudience == "bank-backend")
        #expect(resolved.configuration.http.maxConnectionsPerIP == 0)
        #expect(resolved.configuration.http.trustedProxies.map(\.description) == ["127.0.0.1"])
        #expect(resolved.configuration.masterKeyFile == "/etc/custos/master-key")
    }
}
