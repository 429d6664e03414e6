import CustosConfiguration
import CustosStore

/// Opens the store the configuration names: PostgreSQL for a database URL, else SQLite in
/// the data directory.
public enum StoreFactory {
    public static func open(_ configuration: ServerConfiguration, migrate: Bool) throws -> SQLStore {
        try SQLStore.open(
            databaseURL: configuration.databaseURL,
            dataDirectory: configuration.dataDirectory,
            sqlite: SQLiteOptions(synchronous: configuration.sqliteSynchronous == .full ? .full : .normal,
                                  readerCount: configuration.databasePoolSize),
            postgres: PostgresOptions(poolSize: configuration.databasePoolSize),
            migrate: migrate)
    }

    /// For logs and messages: never the URL itself (it may hold a password).
    public static func describe(_ configuration: ServerConfiguration) -> String {
        configuration.databaseURL == nil ? "sqlite \(configuration.sqlitePath)" : "postgresql"
    }
}
