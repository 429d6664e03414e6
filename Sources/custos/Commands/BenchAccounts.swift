import CustosAPI
import CustosSDK
import Foundation

/// The users a benchmark signs in as: created through the relying-party API and activated,
/// each with its own device key, in a private temporary directory that is removed when the
/// benchmark ends.
enum BenchAccounts {
    /// An activated bench user and the client holding its device key.
    struct Account: Sendable {
        let client: CustosClient
        let userID: String
        let deviceID: String
    }

    /// Options both benchmarks take.
    static let seconds = Option<Int>.integer("seconds", in: 1...86_400, default: 10, help: "how long to measure, 1-86400")
    static func concurrency(_ what: String, default value: Int) -> Option<Int> {
        .integer("concurrency", in: 1...1000, default: value, help: "\(what), 1-1000")
    }

    /// The value below which `p` of `values` lie (0 for none).
    static func percentile(_ values: [Double], _ p: Double) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
    }

    /// Runs `body` with a new private directory for device keys, then removes it with the keys.
    static func withKeyDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("custos-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await body(directory)
    }

    /// Creates `count` users named `<prefix>-<random>-<n>` and activates each, in parallel.
    static func provision(_ count: Int, prefix: String, admin: CustosAdminClient, server: URL, password: String,
                          keys: URL) async throws -> [Account] {
        let keyStore = FileDeviceKeyStore(directory: keys)
        return try await withThrowingTaskGroup(of: Account.self) { group in
            for index in 0..<count {
                group.addTask {
                    let userID = "\(prefix)-\(UUID().uuidString.prefix(8).lowercased())-\(index)"
                    let created = try await admin.createUser(userID)
                    let client = try CustosClient(configuration: .init(serverURL: server, keyStore: keyStore, exchange: CurlExchange.shared))
                    let result = try await client.activate(userID: userID, activationCode: created.activation.activationCode,
                                                           password: password, deviceName: "bench")
                    guard result.statusCode.isSuccess, let deviceID = result.deviceID else {
                        throw CommandFailure("activating bench user \(userID) answered \(result.statusCode) \(result.statusMessage)")
                    }
                    return Account(client: client, userID: userID, deviceID: deviceID)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }
}
