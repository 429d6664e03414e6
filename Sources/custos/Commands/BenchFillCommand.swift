import CustosConfiguration
import CustosCore
import CustosCrypto
import CustosRuntime
import Foundation

/// `custos bench fill`: makes a database look like a deployment a year old, fast, by writing
/// straight through the store (no HTTP, no Argon2id per user): what `bench/scale.sh` measures
/// the server's cost against. Only for benchmarks: the users it makes cannot sign in (their
/// device keys are thrown away) and their history is invented.
enum BenchFillCommand {
    static let users = Option<Int>.integer("users", in: 0...10_000_000, default: 0, help: "users to add, each with a year of history")
    static let auditPerUser = Option<Int>.integer("audit-per-user", in: 4...1000, default: 20, help: "audit events per user, 4-1000")
    static let notificationsPerUser = Option<Int>.integer("notifications-per-user", in: 0...100, default: 2,
                                                          help: "closed notifications per user kept (the last 90 days), 0-100")
    static let prefix = Option<String>.text("prefix", "TEXT", default: "fill", help: "user ids are PREFIX-0000001 and on")
    static let takes = Option<Int>.integer("takes", in: 0...1000, default: 0, help: "earlier selfie takes to give each of --take-users")
    static let takeUsers = Option<String?>.text("take-users", "USER,...", help: "users (comma-separated) to give --takes earlier takes")

    static let settings: [Setting] = AdminAuditCommands.keyedSettings

    static let command = Command(spec: CommandSpec(
        path: "bench fill",
        summary: "Fill a database with a year of synthetic users and history, for bench/scale.sh (never on a real deployment).",
        options: [users.spec, auditPerUser.spec, notificationsPerUser.spec, prefix.spec, takes.spec, takeUsers.spec]
            + ServeCommand.settingOptions(settings),
        example: "custos bench fill --users 100000 --data-dir /tmp/scale"),
        validate: { arguments in
            let text = arguments[prefix]
            guard (1...40).contains(text.count), text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }) else {
                throw UsageError("--prefix must be 1-40 ASCII letters, digits, '-', '_' or '.'")
            }
            guard arguments[users] > 0 || (arguments[takes] > 0 && !takeUserIDs(arguments).isEmpty) else {
                throw UsageError("give --users N, or --takes N with --take-users USER,...")
            }
        }
    ) { arguments in
        let configuration = try ServeCommand.resolveConfiguration(arguments, settings: settings).configuration
        let masterKeys = try MasterKeyLoader.load(configuration)
        let store = try MasterKeyLoader.openStore(configuration, checking: masterKeys)
        defer { store.close() }
        let filler = try SyntheticHistory(store: store, masterKeys: masterKeys, auditPerUser: arguments[auditPerUser],
                                          notificationsPerUser: arguments[notificationsPerUser])
        if arguments[users] > 0 {
            let started = ContinuousClock.now
            let report = try filler.addUsers(arguments[users], prefix: arguments[prefix]) { done in
                Console.out("fill: \(done) users")
            }
            let seconds = (ContinuousClock.now - started).seconds
            Console.out(String(format: "fill: %d users in %.1f s (%.0f users/s): %d audit events, %d notifications, %d OpenID grants",
                               report.users, seconds, Double(report.users) / max(seconds, 0.001), report.auditEvents,
                               report.notifications, report.grants))
        }
        for user in takeUserIDs(arguments) where arguments[takes] > 0 {
            try filler.addTakes(arguments[takes], userID: user)
            Console.out("fill: \(arguments[takes]) earlier takes for \(user)")
        }
        try filler.analyze()
        for (table, rows) in try filler.rowCounts() { Console.out("rows: \(table) \(rows)") }
        return .ok
    }

    static func takeUserIDs(_ arguments: ParsedArguments) -> [String] {
        (arguments[takeUsers] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
