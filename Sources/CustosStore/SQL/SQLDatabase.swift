import CustosCore
import Foundation

/// The SQL dialects the stores speak.
enum SQLDialect: String, Sendable {
    case sqlite
    case postgresql
}

/// One database connection, lent to a closure by `SQLDatabase`. Never shared between threads
/// while lent; never kept after the closure returns.
///
/// SQL is written with `?` positional placeholders in both dialects; the PostgreSQL connection
/// rewrites them to `$1…$n` (outside string literals, quoted identifiers and comments).
protocol SQLConnection: AnyObject {
    /// Runs one statement; returns the number of rows it changed.
    @discardableResult
    func execute(_ sql: String, _ binds: [SQLValue]) throws -> Int
    /// Runs one statement and returns every row it produced (SELECT, or … RETURNING).
    func query(_ sql: String, _ binds: [SQLValue]) throws -> [SQLRow]
    /// Runs a script of several statements without parameters (migrations).
    func executeScript(_ sql: String) throws
    /// Lets the statements of the current transaction run as long as they take (the
    /// migrations' DDL): no statement timeout, no limit on the wait for an answer.
    func liftTimeouts() throws
}

extension SQLConnection {
    /// Connections without timeouts (SQLite) have none to lift.
    func liftTimeouts() throws {}

    @discardableResult
    func execute(_ sql: String) throws -> Int {
        try execute(sql, [])
    }

    func query(_ sql: String) throws -> [SQLRow] {
        try query(sql, [])
    }

    /// The first row, or nil when the statement produced none.
    func queryFirst(_ sql: String, _ binds: [SQLValue] = []) throws -> SQLRow? {
        try query(sql, binds).first
    }
}

/// A database the stores are written against once; SQLite and PostgreSQL implement it.
///
/// All methods are synchronous and thread-safe. Errors are `StoreError`s:
/// `.unavailable` when the database cannot be reached now (busy beyond the timeout, server
/// down, store closed), `.duplicate` for a unique-constraint violation, `.failure` otherwise.
protocol SQLDatabase: Sendable {
    var dialect: SQLDialect { get }
    /// Where the data lives, safe for logs (file path, or URL without its password).
    var location: String { get }
    /// Lends a connection for statements that only read. The SQLite implementation uses a
    /// read-only connection from its reader pool.
    func read<T>(_ body: (any SQLConnection) throws -> T) throws -> T
    /// Lends a connection for a write of one atomic statement (an `INSERT … ON CONFLICT …
    /// RETURNING`, a `DELETE … RETURNING`). SQLite wraps it in `BEGIN IMMEDIATE … COMMIT` on
    /// its single writer connection; PostgreSQL runs it in autocommit mode.
    func write<T>(_ body: (any SQLConnection) throws -> T) throws -> T
    /// Lends a connection inside a transaction: committed when `body` returns, rolled back when
    /// it throws.
    func transaction<T>(_ body: (any SQLConnection) throws -> T) throws -> T
    /// Releases every connection; later calls throw `StoreError.unavailable`.
    func close()
}

extension SQLDatabase {
    /// Runs one writing statement atomically; returns the number of rows it changed.
    @discardableResult
    func execute(_ sql: String, _ binds: [SQLValue] = []) throws -> Int {
        try write { try $0.execute(sql, binds) }
    }

    /// Runs one statement that may write (`… RETURNING`) and returns its rows.
    func query(_ sql: String, _ binds: [SQLValue] = []) throws -> [SQLRow] {
        try write { try $0.query(sql, binds) }
    }

    /// Runs one read-only statement (on a reader connection where the dialect has them).
    func select(_ sql: String, _ binds: [SQLValue] = []) throws -> [SQLRow] {
        try read { try $0.query(sql, binds) }
    }
}
