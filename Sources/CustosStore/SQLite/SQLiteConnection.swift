import CSQLite
import CustosCore
import Foundation

/// `SQLITE_TRANSIENT`: the macro is a cast and is not imported.
private let sqliteTransient = unsafeBitCast(-1 as Int, to: sqlite3_destructor_type.self)
/// Extended result codes defined as expressions, which are not imported.
private let sqliteConstraintPrimaryKey: Int32 = SQLITE_CONSTRAINT | (6 << 8)
private let sqliteConstraintUnique: Int32 = SQLITE_CONSTRAINT | (8 << 8)

/// One SQLite connection with its prepared-statement cache. Used by one thread at a time
/// (the database lends it under a lock), so it needs no locking of its own.
final class SQLiteConnection: SQLConnection {
    private var handle: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]
    let readOnly: Bool

    init(path: String, readOnly: Bool, options: SQLiteOptions) throws {
        self.readOnly = readOnly
        var db: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE))
            | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(db)
            throw SQLiteConnection.error(code: rc, message: "cannot open \(path): \(message)")
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
        // The busy timeout first: switching to WAL needs a lock another process may hold.
        sqlite3_busy_timeout(db, Int32(clamping: max(0, options.busyTimeoutMilliseconds)))
        // Several processes opening a brand-new file at once can get SQLITE_BUSY from the WAL
        // switch without the busy handler being consulted; retry within the busy timeout.
        let deadline = Date().addingTimeInterval(Double(max(0, options.busyTimeoutMilliseconds)) / 1000)
        while true {
            do {
                try configure(readOnly: readOnly, options: options)
                break
            } catch StoreError.unavailable(_) where Date() < deadline {
                usleep(20_000)
            } catch {
                close()
                throw error
            }
        }
    }

    private func configure(readOnly: Bool, options: SQLiteOptions) throws {
        if !readOnly {
            let mode = try query("PRAGMA journal_mode=WAL").first.map { try $0.string(0) }
            guard mode?.lowercased() == "wal" else {
                throw StoreError.failure("SQLite refused WAL mode (journal_mode=\(mode ?? "nil"))")
            }
        }
        try executeScript("PRAGMA synchronous=\(options.synchronous.rawValue); PRAGMA foreign_keys=ON;")
    }

    deinit {
        close()
    }

    var isOpen: Bool { handle != nil }

    /// True when no transaction is open (autocommit mode).
    var isAutocommit: Bool {
        guard let handle else { return true }
        return sqlite3_get_autocommit(handle) != 0
    }

    func close() {
        for statement in statements.values {
            sqlite3_finalize(statement)
        }
        statements.removeAll()
        if let handle {
            sqlite3_close_v2(handle)
        }
        handle = nil
    }

    // MARK: SQLConnection

    @discardableResult
    func execute(_ sql: String, _ binds: [SQLValue]) throws -> Int {
        let db = try open()
        _ = try run(sql, binds, collect: false)
        return Int(sqlite3_changes64(db))
    }

    func query(_ sql: String, _ binds: [SQLValue]) throws -> [SQLRow] {
        try run(sql, binds, collect: true)
    }

    func executeScript(_ sql: String) throws {
        let db = try open()
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(db, sql, nil, nil, &message)
        defer { sqlite3_free(message) }
        guard rc == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(db))
            throw SQLiteConnection.error(code: sqlite3_extended_errcode(db), message: text)
        }
    }

    // MARK: Statements

    private func open() throws -> OpaquePointer {
        guard let handle else { throw StoreError.unavailable("SQLite connection is closed") }
        return handle
    }

    private func prepared(_ sql: String) throws -> OpaquePointer {
        if let cached = statements[sql] { return cached }
        let db = try open()
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard rc == SQLITE_OK, let statement else {
            throw SQLiteConnection.error(code: sqlite3_extended_errcode(db), message: String(cString: sqlite3_errmsg(db)))
        }
        statements[sql] = statement
        return statement
    }

    private func run(_ sql: String, _ binds: [SQLValue], collect: Bool) throws -> [SQLRow] {
        StatementLog.record(sql, binds)
        let db = try open()
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        let expected = Int(sqlite3_bind_parameter_count(statement))
        guard expected == binds.count else {
            throw StoreError.failure("statement expects \(expected) parameters, got \(binds.count)")
        }
        for (offset, value) in binds.enumerated() {
            try bind(value, at: Int32(offset + 1), in: statement, db: db)
        }
        var rows: [SQLRow] = []
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else {
                throw SQLiteConnection.error(code: sqlite3_extended_errcode(db), message: String(cString: sqlite3_errmsg(db)))
            }
            if collect {
                rows.append(row(of: statement))
            }
        }
        return rows
    }

    private func bind(_ value: SQLValue, at index: Int32, in statement: OpaquePointer, db: OpaquePointer) throws {
        let rc: Int32
        switch value {
        case .null:
            rc = sqlite3_bind_null(statement, index)
        case .integer(let v):
            rc = sqlite3_bind_int64(statement, index, v)
        case .real(let v):
            rc = sqlite3_bind_double(statement, index, v)
        case .text(let s):
            // withCString always gives a non-null pointer, so "" binds an empty string, not NULL;
            // the explicit length keeps any embedded NUL.
            rc = s.withCString { chars in
                sqlite3_bind_text64(statement, index, chars, UInt64(s.utf8.count), sqliteTransient, UInt8(SQLITE_UTF8))
            }
        case .blob(let d):
            if d.isEmpty {
                // sqlite3_bind_blob with a NULL pointer binds NULL: bind a zero-length blob instead.
                rc = sqlite3_bind_zeroblob(statement, index, 0)
            } else {
                rc = d.withUnsafeBytes { raw in
                    sqlite3_bind_blob64(statement, index, raw.baseAddress, UInt64(raw.count), sqliteTransient)
                }
            }
        }
        guard rc == SQLITE_OK else {
            throw SQLiteConnection.error(code: rc, message: String(cString: sqlite3_errmsg(db)))
        }
    }

    private func row(of statement: OpaquePointer) -> SQLRow {
        let count = sqlite3_column_count(statement)
        var values: [SQLValue] = []
        values.reserveCapacity(Int(count))
        for column in 0..<count {
            switch sqlite3_column_type(statement, column) {
            case SQLITE_INTEGER:
                values.append(.integer(sqlite3_column_int64(statement, column)))
            case SQLITE_FLOAT:
                values.append(.real(sqlite3_column_double(statement, column)))
            case SQLITE_TEXT:
                let length = Int(sqlite3_column_bytes(statement, column))
                if let text = sqlite3_column_text(statement, column) {
                    values.append(.text(String(decoding: UnsafeBufferPointer(start: text, count: length), as: UTF8.self)))
                } else {
                    values.append(.text(""))
                }
            case SQLITE_BLOB:
                let length = Int(sqlite3_column_bytes(statement, column))
                if let bytes = sqlite3_column_blob(statement, column), length > 0 {
                    values.append(.blob(Data(bytes: bytes, count: length)))
                } else {
                    values.append(.blob(Data()))
                }
            default:
                values.append(.null)
            }
        }
        return SQLRow(values)
    }

    // MARK: Errors

    /// Maps an SQLite result code onto the stores' error vocabulary.
    static func error(code: Int32, message: String) -> StoreError {
        let primary = code & 0xFF
        switch primary {
        case SQLITE_CONSTRAINT where code == sqliteConstraintUnique || code == sqliteConstraintPrimaryKey:
            return .duplicate(message)
        case SQLITE_BUSY, SQLITE_LOCKED:
            return .unavailable("database is busy: \(message)")
        case SQLITE_CANTOPEN, SQLITE_IOERR, SQLITE_FULL, SQLITE_PROTOCOL:
            return .unavailable(message)
        default:
            return .failure("SQLite error \(code): \(message)")
        }
    }
}
