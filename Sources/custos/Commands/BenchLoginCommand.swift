import CustosAPI
import CustosSDK
import Foundation

/// `custos bench login`: logins per second against a running server, through the SDK
/// (challenge, ES256 signature, login), from several users at once.
enum BenchLoginCommand {
    static let command = Command(spec: CommandSpec(
        path: "bench login", summary: "Measure logins per second (device signature, plus password unless --no-password).",
        options: [ClientOptions.server, ClientOptions.apiKey,
                  .value("seconds", "N", "how long to measure (default 10)"), .value("concurrency", "N", "parallel clients (default 4)"),
                  .flag("no-password", "device-only logins (the server must run with --password-at-login never)")])
    ) { arguments in
        let seconds = try positiveInteger(arguments, "seconds", default: 10)
        let concurrency = try positiveInteger(arguments, "concurrency", default: 4)
        let withPassword = !arguments.has("no-password")
        let admin = try ClientOptions.adminClient(arguments)
        let server = try ClientOptions.serverURL(arguments)
        let password = "bench password 123"

        let accounts = try callServer {
            try await withThrowingTaskGroup(of: (CustosClient, String, String).self) { group in
                for index in 0..<concurrency {
                    group.addTask {
                        let userID = "bench-\(UUID().uuidString.prefix(8).lowercased())-\(index)"
                        let created = try await admin.createUser(userID)
                        let keys = FileManager.default.temporaryDirectory.appendingPathComponent("custos-bench-\(UUID().uuidString)")
                        let client = try CustosClient(configuration: .init(serverURL: server, keyStore: FileDeviceKeyStore(directory: keys)))
                        let result = try await client.activate(userID: userID, activationCode: created.activation.activationCode,
                                                               password: password, deviceName: "bench")
                        return (client, userID, result.deviceID ?? "")
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }

        let latencies = try callServer {
            let deadline = Date().addingTimeInterval(Double(seconds))
            return try await withThrowingTaskGroup(of: [Double].self) { group in
                for (client, userID, deviceID) in accounts {
                    group.addTask {
                        var samples: [Double] = []
                        while Date() < deadline {
                            let start = DispatchTime.now().uptimeNanoseconds
                            let result = try await client.login(userID: userID, deviceID: deviceID, password: withPassword ? password : nil)
                            guard result.statusCode == StatusCode.success else {
                                throw CustosError.transportFailed
                            }
                            samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                        }
                        return samples
                    }
                }
                return try await group.reduce(into: [Double]()) { $0 += $1 }.sorted()
            }
        }
        guard !latencies.isEmpty else { throw UsageError("no login completed") }
        let percentile = { (p: Double) in latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] }
        let mode = withPassword ? "device+password" : "device-only"
        Console.out(String(format: "%@ logins: %d in %ds, %.1f logins/s, p50 %.1f ms, p95 %.1f ms (concurrency %d)",
                           mode, latencies.count, seconds, Double(latencies.count) / Double(seconds), percentile(0.5), percentile(0.95),
                           concurrency))
        return .ok
    }

    private static func positiveInteger(_ arguments: ParsedArguments, _ name: String, default value: Int) throws -> Int {
        guard let text = arguments.value(name) else { return value }
        guard let number = Int(text), number > 0 else { throw UsageError("--\(name) must be a positive integer") }
        return number
    }
}
