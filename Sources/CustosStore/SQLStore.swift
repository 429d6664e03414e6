import CustosCore
import Foundation

/// The stores over SQL: SQLite (embedded, the default) or PostgreSQL (several server nodes),
/// the same code and the same behaviour on both. Besides `Store` it is the `IdentityStore`
/// (users, devices, sessions, API keys; see the `SQLStore+…` extensions).
///
/// - All calls are synchronous, thread-safe and throw `StoreError`: `.unavailable` when the
///   database cannot be reached now (busy beyond the timeout, server down, store closed),
///   `.duplicate`, `.migrationFailed`, or `.failure` (detail for the log only).
/// - Dates are stored as milliseconds since 1970, rounded to the nearest: an `expiresAt` comes
///   back without its sub-millisecond part. A token expires at `expiresAt` (consumable while
///   `expiresAt > now`).
/// - Empty strings (purpose, subject, counter key) and empty digests/payloads are ordinary
///   values, stored and matched exactly like any other; no length limits apply at this level.
public final class SQLStore: Store {
    let database: AmbientTransactions
    private let migrator: Migrator

    /// `"sqlite"` or `"postgresql"`, for logs.
    public var dialect: String { database.dialect.rawValue }
    /// The database file, or the PostgreSQL URL without its password, for logs.
    public var location: String { database.location }
    /// The schema version this code brings databases to.
    public static var latestSchemaVersion: Int { Migrations.latestVersion }
    /// The file name used inside the data directory when no database URL is given.
    public static let defaultSQLiteFileName = "custos.sqlite"

    init(database: any SQLDatabase, schema: String? = nil) {
        self.database = AmbientTransactions(base: database)
        self.migrator = Migrator(database: database, schema: schema)
    }

    /// Opens (creating it and its directories if needed) the SQLite database at `path`;
    /// with `migrate`, brings its schema to the latest version.
    public static func openSQLite(path: String, options: SQLiteOptions = SQLiteOptions(), migrate: Bool = true) throws -> SQLStore {
        let store = SQLStore(database: try SQLiteDatabase(path: path, options: options))
        try store.prepare(migrate: migrate)
        return store
    }

    /// Connects to PostgreSQL at `url` (`postgresql://user:password@host:port/db?…` or a unix
    /// socket: `postgresql://user@/db?host=/run/postgresql`); with `migrate`, brings its schema
    /// to the latest version, otherwise checks the server answers. Throws
    /// `StoreError.unavailable` when the server cannot be reached.
    public static func openPostgres(url: String, options: PostgresOptions = PostgresOptions(), migrate: Bool = true) throws -> SQLStore {
        let store = SQLStore(database: try PostgresDatabase(url: url, options: options), schema: options.schema)
        try store.prepare(migrate: migrate)
        return store
    }

    /// Chooses the database from configuration: PostgreSQL for a `postgres://` or
    /// `postgresql://` URL; SQLite at the path of a `sqlite:` URL (`sqlite:/var/lib/custos/db`,
    /// `sqlite:///var/lib/custos/db`); SQLite at `<dataDirectory>/custos.sqlite` when
    /// `databaseURL` is nil or empty. Any other scheme is refused with `StoreError.failure`
    /// rather than silently falling back to SQLite.
    public static func open(
        databaseURL: String?,
        dataDirectory: String,
        sqlite: SQLiteOptions = SQLiteOptions(),
        postgres: PostgresOptions = PostgresOptions(),
        migrate: Bool = true
    ) throws -> SQLStore {
        let url = databaseURL?.trimmingCharacters(in: .whitespaces) ?? ""
        if url.isEmpty {
            let path = URL(fileURLWithPath: dataDirectory).appendingPathComponent(defaultSQLiteFileName).path
            return try openSQLite(path: path, options: sqlite, migrate: migrate)
        }
        let lowered = url.lowercased()
        if lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://") {
            return try openPostgres(url: url, options: postgres, migrate: migrate)
        }
        if lowered.hasPrefix("sqlite:") {
            var path = String(url.dropFirst("sqlite:".count))
            if path.hasPrefix("//") { path.removeFirst(2) }
            guard !path.isEmpty else { throw StoreError.failure("sqlite: URL without a path") }
            return try openSQLite(path: path, options: sqlite, migrate: migrate)
        }
        let scheme = url.split(separator: ":", maxSplits: 1).first.map(String.init) ?? url
        throw StoreError.failure("unsupported database URL scheme \"\(scheme)\" (use postgresql://… or sqlite:PATH)")
    }

    private func prepare(migrate: Bool) throws {
        do {
            if migrate {
                try self.migrate(apply: true)
            } else {
                try ping()
            }
        } catch {
            close()
            throw error
        }
    }

    /// With `apply` (the default), applies the missing migrations in order, each in its own
    /// transaction; without, only reports where the schema stands. Throws
    /// `StoreError.migrationFailed` when the database's schema is newer than this code.
    @discardableResult
    public func migrate(apply: Bool = true) throws -> MigrationStatus {
        try migrator.migrate(apply: apply)
    }

    /// The schema version recorded in the database (0 before the first migration).
    public func schemaVersion() throws -> Int {
        try migrator.currentVersion()
    }

    // MARK: AtomicStore

    /// One transaction: SQLite `BEGIN IMMEDIATE` on the single writer, PostgreSQL `BEGIN` on
    /// one pooled connection (see `AmbientTransactions`).
    public func atomically<T>(_ body: () throws -> T) throws -> T {
        try database.atomically(body)
    }

    // MARK: DatabaseHealth

    public func ping() throws {
        _ = try database.select("SELECT 1")
    }

    public func close() {
        database.close()
    }
}
