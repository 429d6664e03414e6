import CustosAPI
import CustosSDK
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `custos bench token`: OpenID Connect sign-in against a running server — bound-device sign-ins
/// (challenge, WebAuthn assertion, code) and their PKCE code exchanges per second, discovery and
/// JWKS reads per second, and the password fallback (a device registered with the password,
/// Argon2id-bound) per second, each with p50/p95.
enum BenchTokenCommand {
    static let concurrency = BenchAccounts.concurrency("clients at once", default: 4)
    static let clientID = Option<String?>.text("client-id", "CLIENT", help: "a public OpenID client (admin client create)").required()
    static let redirectURI = Option<String?>.text("redirect-uri", "URI", help: "its registered redirect URI").required()

    static let command = Command(spec: CommandSpec(
        path: "bench token", summary: "Measure bound-device sign-ins, code exchanges, discovery/JWKS reads and password fallbacks per second.",
        options: [ClientOptions.server.spec, ClientOptions.apiKey.spec, BenchAccounts.seconds.spec, concurrency.spec, clientID.spec,
                  redirectURI.spec],
        example: "custos bench token --client-id oc_… --redirect-uri com.example.app:/cb --seconds 10")
    ) { arguments in
        let (seconds, concurrency) = (arguments[BenchAccounts.seconds], arguments[concurrency])
        let admin = try ClientOptions.adminClient(arguments)
        let server = try ClientOptions.serverURL(arguments)
        let password = "bench password 123"
        let request = BoundUserAuthenticationRequest(redirectURI: try arguments[redirectURI], clientID: try arguments[clientID])

        try await BenchAccounts.withKeyDirectory { keys in
            let accounts = try await BenchAccounts.provision(concurrency, prefix: "token", admin: admin, server: server,
                                                             password: password, keys: keys)
            let signIns = try await measure(workers: accounts, seconds: seconds) { account in
                let start = DispatchTime.now().uptimeNanoseconds
                let response = try await account.client.authenticateBoundUser(request)
                let signedIn = DispatchTime.now().uptimeNanoseconds
                _ = try await account.client.exchangeToken(response)
                return [Double(signedIn - start) / 1e6, Double(DispatchTime.now().uptimeNanoseconds - signedIn) / 1e6]
            }
            report("bound-device sign-in (challenge, assertion, code)", signIns.map { $0[0] }, seconds: seconds)
            report("code exchange (PKCE, ID token checked against the JWKS)", signIns.map { $0[1] }, seconds: seconds)

            let reads = try await measure(workers: Array(0..<concurrency), seconds: seconds) { index in
                let path = index.isMultiple(of: 2) ? Endpoints.openIDConfiguration.path : Endpoints.jwks.path
                let start = DispatchTime.now().uptimeNanoseconds
                let (_, response) = try await URLSession.shared.data(from: URL(string: server.absoluteString + path)!)
                guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw CommandFailure("GET \(path) failed") }
                return [Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6]
            }
            report("discovery and JWKS reads", reads.map { $0[0] }, seconds: seconds)

            let fallbacks = try await measure(workers: accounts, seconds: seconds) { account in
                let client = try CustosClient(configuration: .init(serverURL: server, keyStore: FileDeviceKeyStore(directory: keys)))
                let start = DispatchTime.now().uptimeNanoseconds
                let result = try await client.registerDevice(userID: account.userID, password: password, deviceName: "bench fallback")
                guard result.statusCode.isSuccess else { throw CommandFailure("password registration answered \(result.statusCode)") }
                return [Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6]
            }
            report("password fallback (device registered with the password)", fallbacks.map { $0[0] }, seconds: seconds)
        }
        Console.out("(concurrency \(concurrency), \(seconds) s each)")
        return .ok
    }

    /// Runs `round` on every worker until the deadline; each round's timings.
    static func measure<Worker: Sendable>(workers: [Worker], seconds: Int,
                                          _ round: @escaping @Sendable (Worker) async throws -> [Double]) async throws -> [[Double]] {
        let deadline = Date().addingTimeInterval(Double(seconds))
        return try await withThrowingTaskGroup(of: [[Double]].self) { group in
            for worker in workers {
                group.addTask {
                    var samples: [[Double]] = []
                    while Date() < deadline { samples.append(try await round(worker)) }
                    return samples
                }
            }
            return try await group.reduce(into: [[Double]]()) { $0 += $1 }
        }
    }

    static func report(_ what: String, _ samples: [Double], seconds: Int) {
        Console.out(String(format: "%@: %d, %.1f/s, p50 %.1f ms, p95 %.1f ms", what, samples.count, Double(samples.count) / Double(seconds),
                           BenchAccounts.percentile(samples, 0.5), BenchAccounts.percentile(samples, 0.95)))
    }
}
