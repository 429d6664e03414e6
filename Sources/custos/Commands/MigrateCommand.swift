import CustosConfiguration
import CustosRuntime

/// `custos migrate`: bring the database schema up to date and exit.
enum MigrateCommand {
    static let settings: [Setting] = [.dataDir, .databaseURL, .config, .databasePoolSize, .sqliteSynchronous]

    static let command = Command(
        spec: CommandSpec(path: "migrate", summary: "Apply database migrations (SQLite or PostgreSQL) and exit.",
                          options: ServeCommand.settingOptions(settings))
    ) { arguments in
        let configuration = try ServeCommand.resolveConfiguration(arguments, settings: settings).configuration
        let store = try StoreFactory.open(configuration, migrate: false)
        defer { store.close() }
        let status = try store.migrate(apply: true)
        let applied = status.applied.isEmpty ? "none" : status.applied.map(String.init).joined(separator: ", ")
        Console.out("\(StoreFactory.describe(configuration)): schema version \(status.currentVersion) of \(status.latestVersion); applied: \(applied)")
        return .ok
    }
}
