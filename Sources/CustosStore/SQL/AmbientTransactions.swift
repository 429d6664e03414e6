import Foundation

/// Lets `SQLStore.atomically` span calls made through unrelated services: while a thread runs
/// an atomic block, every call it makes on this database runs on the block's connection,
/// inside the block's transaction. Outside a block it passes every call to `base`.
///
/// Inside a block, a write or a nested transaction runs under a savepoint, so one that fails
/// (a duplicate the caller expected, say) is undone alone and the block can go on; on
/// PostgreSQL a failed statement would otherwise poison the whole transaction.
final class AmbientTransactions: SQLDatabase, @unchecked Sendable {
    let base: any SQLDatabase

    /// The block a thread is running, and on which database.
    private final class Block: @unchecked Sendable {
        let database: ObjectIdentifier
        let connection: any SQLConnection
        /// Whether a write runs under its own savepoint (false: a bulk load, all or nothing).
        let undoesAlone: Bool
        var savepoints = 0

        init(database: ObjectIdentifier, connection: any SQLConnection, undoesAlone: Bool = true) {
            self.database = database
            self.connection = connection
            self.undoesAlone = undoesAlone
        }
    }

    @TaskLocal private static var current: Block?

    init(base: any SQLDatabase) {
        self.base = base
    }

    var dialect: SQLDialect { base.dialect }
    var location: String { base.location }

    /// The block this thread runs on this database, if any.
    private var block: Block? {
        guard let block = Self.current, block.database == ObjectIdentifier(self) else { return nil }
        return block
    }

    func atomically<T>(_ body: () throws -> T) throws -> T {
        if block != nil { return try body() }
        return try base.transaction { connection in
            try Self.$current.withValue(Block(database: ObjectIdentifier(self), connection: connection)) { try body() }
        }
    }

    /// Like `atomically`, for loading many rows at once: no savepoint per write (a failed one
    /// fails the whole block) and, on SQLite, a page cache of `cacheMiB` for the block.
    func bulk<T>(cacheMiB: Int, _ body: () throws -> T) throws -> T {
        guard block == nil else { return try body() }
        return try base.transaction { connection in
            guard dialect == .sqlite else {
                return try Self.$current.withValue(Block(database: ObjectIdentifier(self), connection: connection, undoesAlone: false)) { try body() }
            }
            // The larger cache is the block's only: the pooled connection gets its own back.
            let kept = try connection.queryFirst("PRAGMA cache_size").map { try $0.int64(0) } ?? -2000
            try connection.executeScript("PRAGMA cache_size = -\(cacheMiB * 1024)")
            defer { _ = try? connection.executeScript("PRAGMA cache_size = \(kept)") }
            return try Self.$current.withValue(Block(database: ObjectIdentifier(self), connection: connection, undoesAlone: false)) { try body() }
        }
    }

    func read<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        guard let block else { return try base.read(body) }
        return try body(block.connection)
    }

    func write<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        guard let block else { return try base.write(body) }
        return try underSavepoint(block, body)
    }

    func transaction<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        guard let block else { return try base.transaction(body) }
        return try underSavepoint(block, body)
    }

    func close() {
        base.close()
    }

    private func underSavepoint<T>(_ block: Block, _ body: (any SQLConnection) throws -> T) throws -> T {
        guard block.undoesAlone else { return try body(block.connection) }
        let name = "custos_\(block.savepoints)"
        block.savepoints += 1
        defer { block.savepoints -= 1 }
        let connection = block.connection
        try connection.executeScript("SAVEPOINT \(name)")
        do {
            let result = try body(connection)
            try connection.executeScript("RELEASE SAVEPOINT \(name)")
            return result
        } catch {
            _ = try? connection.executeScript("ROLLBACK TO SAVEPOINT \(name)")
            _ = try? connection.executeScript("RELEASE SAVEPOINT \(name)")
            throw error
        }
    }
}
