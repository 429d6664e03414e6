import CustosConfiguration
import CustosRuntime
import CustosStore

/// Options and a helper of the commands that work straight against the database, with no
/// server and no API key (`admin apikey …`, `admin audit …`).
enum DatabaseOptions {
    static let settings: [Setting] = [.dataDir, .databaseURL, .config]
    static var options: [OptionSpec] { ServeCommand.settingOptions(settings) }

    /// Opens the configured database (bringing its schema up to date), lends it to `body`, and
    /// closes it.
    static func withStore<T>(_ arguments: ParsedArguments, _ body: (SQLStore) throws -> T) throws -> T {
        let configuration = try ServeCommand.resolveConfiguration(arguments, settings: settings).configuration
        let store = try StoreFactory.open(configuration, migrate: true)
        defer { store.close() }
        return try body(store)
    }
}
