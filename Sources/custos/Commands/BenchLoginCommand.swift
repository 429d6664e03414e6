import CustosAPI
import CustosSDK
import Foundation

/// `custos bench login`: logins per second against a running server, through the SDK
/// (challenge, ES256 signature, login), from several users at once.
enum BenchLoginCommand {
    static let concurrency = BenchAccounts.concurrency("parallel clients", default: 4)
    static let noPassword = Flag("no-password", help: "device-only logins (the server must run with --password-at-login never)")

    static let command = Command(spec: CommandSpec(
        path: "bench login", summary: "Measure logins per second (device signature, plus password unless --no-password).",
        options: [ClientOptions.server.spec, ClientOptions.apiKey.spec, BenchAccounts.seconds.spec, concurrency.spec, noPassword.spec],
        example: "custos bench login --seconds 30 --concurrency 8")
    ) { arguments in
        let (seconds, concurrency) = (arguments[BenchAccounts.seconds], arguments[concurrency])
        let withPassword = !arguments[noPassword]
        let admin = try ClientOptions.adminClient(arguments)
        let server = try ClientOptions.serverURL(arguments)
        let password = "bench password 123"

        let latencies = try await BenchAccounts.withKeyDirectory { keys in
            let accounts = try await BenchAccounts.provision(concurrency, prefix: "bench", admin: admin, server: server,
                                                             password: password, keys: keys)
            let deadline = Date().addingTimeInterval(Double(seconds))
            return try await withThrowingTaskGroup(of: [Double].self) { group in
                for account in accounts {
                    group.addTask { try await logins(account, password: withPassword ? password : nil, until: deadline) }
                }
                return try await group.reduce(into: [Double]()) { $0 += $1 }.sorted()
            }
        }
        guard !latencies.isEmpty else { throw CommandFailure("no login completed") }
        let percentile = { (p: Double) in BenchAccounts.percentile(latencies, p) }
        let mode = withPassword ? "device+password" : "device-only"
        Console.out(String(format: "%@ logins: %d in %ds, %.1f logins/s, p50 %.1f ms, p95 %.1f ms (concurrency %d)",
                           mode, latencies.count, seconds, Double(latencies.count) / Double(seconds), percentile(0.5), percentile(0.95),
                           concurrency))
        return .ok
    }

    /// One user's logins until the deadline: their latencies in milliseconds.
    private static func logins(_ account: BenchAccounts.Account, password: String?, until deadline: Date) async throws -> [Double] {
        var samples: [Double] = []
        while Date() < deadline {
            let start = DispatchTime.now().uptimeNanoseconds
            let result = try await account.client.login(userID: account.userID, deviceID: account.deviceID, password: password)
            guard result.statusCode == StatusCode.success else {
                throw CommandFailure("login of \(account.userID) answered \(result.statusCode) \(result.statusMessage) "
                                     + "(\(result.attemptsLeft) attempts left)")
            }
            samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        return samples
    }
}
