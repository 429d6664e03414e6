import CustosCore
import Foundation

/// Where a database's schema stands against the migrations this code knows.
public struct MigrationStatus: Sendable, Equatable {
    /// The highest version recorded in `schema_migrations` (0 for an empty database).
    public var currentVersion: Int
    /// The highest version this code knows.
    public var latestVersion: Int
    /// Versions this call applied (empty for a dry run or an up-to-date database).
    public var applied: [Int]
    /// Versions still missing after this call (the whole gap for a dry run).
    public var pending: [Int]

    public init(currentVersion: Int, latestVersion: Int, applied: [Int], pending: [Int]) {
        self.currentVersion = currentVersion
        self.latestVersion = latestVersion
        self.applied = applied
        self.pending = pending
    }
}

/// Applies `Migrations.all` to a database: each missing migration in its own transaction,
/// recorded in `schema_migrations(version, name, applied_at)`. On PostgreSQL every migration
/// transaction first takes a transaction-scoped advisory lock, so nodes starting together
/// apply each migration once; on SQLite `BEGIN IMMEDIATE` does the same across processes.
struct Migrator {
    let database: any SQLDatabase
    let migrations: [Migration]
    let schema: String?
    let now: @Sendable () -> Date

    /// Key of the advisory lock (ASCII "CUSTOSMG"); one key for every schema keeps it simple.
    static let advisoryLockKey: Int64 = 0x4355_5354_4F53_4D47

    init(database: any SQLDatabase, migrations: [Migration] = Migrations.all, schema: String? = nil, now: @escaping @Sendable () -> Date = { Date() }) {
        self.database = database
        self.migrations = migrations
        self.schema = schema
        self.now = now
    }

    var latestVersion: Int { migrations.map(\.version).max() ?? 0 }

    /// The recorded version, 0 when `schema_migrations` does not exist yet. Creates nothing.
    func currentVersion() throws -> Int {
        try database.read { connection in
            guard try tableExists(connection) else { return 0 }
            return try connection.queryFirst("SELECT COALESCE(MAX(version), 0) FROM schema_migrations")?.int(0) ?? 0
        }
    }

    /// With `apply`, brings the schema to the latest version; without, only reports. Throws
    /// `StoreError.migrationFailed` when the database is newer than this code, or when a
    /// migration fails (that migration is rolled back; earlier ones stay applied).
    func migrate(apply: Bool) throws -> MigrationStatus {
        let latest = latestVersion
        let current = try wrap { try currentVersion() }
        guard current <= latest else {
            throw StoreError.migrationFailed(
                "the database schema is at version \(current), newer than this program knows (\(latest)); upgrade the program"
            )
        }
        guard apply else {
            return MigrationStatus(currentVersion: current, latestVersion: latest, applied: [], pending: pendingVersions(after: current))
        }
        if current == 0 {
            try wrap { try createBookkeeping() }
        }
        var applied: [Int] = []
        for migration in migrations where migration.version > current {
            if try wrap({ try applyIfMissing(migration) }) {
                applied.append(migration.version)
            }
        }
        return MigrationStatus(currentVersion: try wrap { try currentVersion() }, latestVersion: latest, applied: applied, pending: [])
    }

    private func pendingVersions(after version: Int) -> [Int] {
        migrations.map(\.version).filter { $0 > version }
    }

    private func createBookkeeping() throws {
        try database.transaction { connection in
            try lock(connection)
            if let schema, database.dialect == .postgresql {
                try connection.executeScript("CREATE SCHEMA IF NOT EXISTS \(schema)")
            }
            try connection.executeScript("""
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version    INTEGER NOT NULL PRIMARY KEY,
                    name       TEXT    NOT NULL,
                    applied_at BIGINT  NOT NULL
                )
                """)
        }
    }

    /// Applies `migration` unless another process did meanwhile; returns whether it applied it.
    private func applyIfMissing(_ migration: Migration) throws -> Bool {
        try database.transaction { connection in
            try lock(connection)
            let newest = try connection.queryFirst("SELECT COALESCE(MAX(version), 0) FROM schema_migrations")?.int(0) ?? 0
            if newest > latestVersion {
                throw StoreError.migrationFailed("the database schema is at version \(newest), newer than this program knows (\(latestVersion))")
            }
            let done = try connection.queryFirst("SELECT 1 FROM schema_migrations WHERE version = ?", [.integer(Int64(migration.version))])
            if done != nil { return false }
            do {
                try connection.executeScript(migration.sql(for: database.dialect))
            } catch {
                throw StoreError.migrationFailed("migration \(migration.version) (\(migration.name)) failed: \(error)")
            }
            try connection.execute(
                "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                [.integer(Int64(migration.version)), .text(migration.name), .integer(SQLTime.milliseconds(now()))]
            )
            return true
        }
    }

    /// PostgreSQL: serialize migrating nodes and lift the statement timeout for the DDL.
    private func lock(_ connection: any SQLConnection) throws {
        guard database.dialect == .postgresql else { return }
        try connection.liftTimeouts()
        try connection.execute("SELECT pg_advisory_xact_lock(?)", [.integer(Migrator.advisoryLockKey)])
    }

    private func tableExists(_ connection: any SQLConnection) throws -> Bool {
        switch database.dialect {
        case .sqlite:
            return try connection.queryFirst(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
            ) != nil
        case .postgresql:
            return try connection.queryFirst("SELECT to_regclass('schema_migrations') IS NOT NULL")?.bool(0) ?? false
        }
    }

    /// Unavailability stays `.unavailable` (retry later); anything else is a migration failure.
    private func wrap<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StoreError {
            switch error {
            case .unavailable, .migrationFailed: throw error
            case .duplicate(let message), .failure(let message): throw StoreError.migrationFailed(message)
            }
        }
    }
}
