import CLibPQ
import CustosCore
import Foundation

/// One libpq connection. Connects lazily and reconnects (`PQreset`) before use when the
/// previous connection broke, so a pool survives a server restart. Used by one thread at a
/// time (lent by `BlockingPool`), so it needs no locking of its own.
///
/// Every statement waits for the server's answer at most `answerTimeout` seconds: a server
/// that stopped answering (a frozen host, a cut network that TCP has not noticed) cannot time
/// out its own statements, so past that the connection is given up (closed; the next use
/// connects anew) and the call fails with `StoreError.unavailable`.
final class PostgresConnection: SQLConnection {
    private var handle: OpaquePointer?  // PGconn *
    private let keywords: [String]
    private let values: [String]
    /// Seconds a statement waits for the server's answer; nil: as long as it takes.
    var answerTimeout: TimeInterval?

    /// `keywords`/`values`: libpq connection parameters (no expansion of `dbname`).
    init(keywords: [String], values: [String]) {
        self.keywords = keywords
        self.values = values
    }

    deinit {
        close()
    }

    func close() {
        if let handle {
            PQfinish(handle)
        }
        handle = nil
    }

    /// Makes sure the connection is usable: connects the first time; resets it when it is
    /// bad, inside a transaction a previous user left open, or when the server sent something
    /// while it was idle (typically "terminating connection" before a shutdown).
    /// Throws `StoreError.unavailable` when the server cannot be reached.
    func ensureReady() throws {
        guard let handle else {
            handle = connect()
            try checkConnected()
            return
        }
        if PQstatus(handle) != CONNECTION_OK || PQtransactionStatus(handle) != PQTRANS_IDLE || hasPendingInput(handle) {
            PQreset(handle)
        }
        try checkConnected()
    }

    private func connect() -> OpaquePointer? {
        let cKeywords = keywords.map { strdup($0) }
        let cValues = values.map { strdup($0) }
        defer {
            cKeywords.forEach { free($0) }
            cValues.forEach { free($0) }
        }
        let keywordPointers = cKeywords.map { UnsafePointer<CChar>($0) } + [nil]
        let valuePointers = cValues.map { UnsafePointer<CChar>($0) } + [nil]
        let handle = PQconnectdbParams(keywordPointers, valuePointers, 0)
        // libpq prints server notices ("relation … already exists, skipping") to stderr by
        // default; errors reach callers as thrown errors, notices are not needed.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
        return handle
    }

    private func checkConnected() throws {
        guard let handle else { throw StoreError.unavailable("PostgreSQL: out of memory") }
        guard PQstatus(handle) == CONNECTION_OK else {
            throw StoreError.unavailable("PostgreSQL is unreachable: \(PostgresConnection.message(PQerrorMessage(handle)))")
        }
    }

    /// True when the idle connection's socket has input or is closed: the server spoke
    /// unprompted, which for these connections means it is terminating them.
    private func hasPendingInput(_ handle: OpaquePointer) -> Bool {
        let socket = PQsocket(handle)
        guard socket >= 0 else { return true }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, 0)
        return ready != 0
    }

    // MARK: SQLConnection

    @discardableResult
    func execute(_ sql: String, _ binds: [SQLValue]) throws -> Int {
        let result = try run(sql, binds)
        defer { PQclear(result) }
        guard let tuples = PQcmdTuples(result) else { return 0 }
        return Int(String(cString: tuples)) ?? 0
    }

    func query(_ sql: String, _ binds: [SQLValue]) throws -> [SQLRow] {
        let result = try run(sql, binds)
        defer { PQclear(result) }
        let rowCount = PQntuples(result)
        let columnCount = PQnfields(result)
        var rows: [SQLRow] = []
        rows.reserveCapacity(Int(rowCount))
        for row in 0..<rowCount {
            var values: [SQLValue] = []
            values.reserveCapacity(Int(columnCount))
            for column in 0..<columnCount {
                if PQgetisnull(result, row, column) != 0 {
                    values.append(.null)
                    continue
                }
                let length = Int(PQgetlength(result, row, column))
                let bytes = UnsafeRawBufferPointer(start: PQgetvalue(result, row, column), count: length)
                values.append(try PostgresValues.decode(bytes, oid: PQftype(result, column)))
            }
            rows.append(SQLRow(values))
        }
        return rows
    }

    func executeScript(_ sql: String) throws {
        let handle = try open()
        guard PQsendQuery(handle, sql) == 1 else {
            throw PostgresConnection.error(sqlState: nil, message: PostgresConnection.message(PQerrorMessage(handle)),
                                           connectionLost: PQstatus(handle) != CONNECTION_OK)
        }
        let result = try awaitResult(handle)
        defer { PQclear(result) }
        try check(result, handle)
    }

    /// The migrations' DDL may take as long as it takes: no statement timeout on the server for
    /// the rest of this transaction, and no limit on the wait for its answer for the rest of
    /// this loan of the connection.
    func liftTimeouts() throws {
        try executeScript("SET LOCAL statement_timeout = 0")
        answerTimeout = nil
    }

    /// Rolls back an open transaction, ignoring failures (a broken connection is reset on its
    /// next use anyway).
    func rollbackQuietly() {
        guard let handle, PQstatus(handle) == CONNECTION_OK, PQtransactionStatus(handle) != PQTRANS_IDLE else { return }
        try? executeScript("ROLLBACK")
    }

    // MARK: Execution

    private func open() throws -> OpaquePointer {
        guard let handle else { throw StoreError.unavailable("PostgreSQL connection is not open") }
        return handle
    }

    /// Runs one parametrized statement with binary parameters and binary results; returns the
    /// result, which the caller must `PQclear`.
    private func run(_ sql: String, _ binds: [SQLValue]) throws -> OpaquePointer {
        StatementLog.record(sql, binds)
        let handle = try open()
        let text = Placeholders.dollarNumbered(sql)
        let parameters = binds.map(PostgresValues.parameter)
        let types: [Oid] = parameters.map { Oid($0.type) }
        let lengths: [Int32] = parameters.map { Int32(clamping: $0.bytes?.count ?? 0) }
        let formats = [Int32](repeating: 1, count: parameters.count)
        // All parameter bytes in one buffer; a trailing byte keeps the pointer of an empty
        // (but non-NULL) value valid.
        var storage: [UInt8] = []
        var offsets: [Int?] = []
        for parameter in parameters {
            if let bytes = parameter.bytes {
                offsets.append(storage.count)
                storage.append(contentsOf: bytes)
            } else {
                offsets.append(nil)
            }
        }
        storage.append(0)
        let sent = storage.withUnsafeBytes { raw in
            let base = raw.baseAddress!.assumingMemoryBound(to: CChar.self)
            let pointers: [UnsafePointer<CChar>?] = offsets.map { offset in offset.map { base + $0 } }
            return PQsendQueryParams(handle, text, Int32(parameters.count), types, pointers, lengths, formats, 1)
        }
        guard sent == 1 else {
            throw PostgresConnection.error(sqlState: nil, message: PostgresConnection.message(PQerrorMessage(handle)),
                                           connectionLost: PQstatus(handle) != CONNECTION_OK)
        }
        let result = try awaitResult(handle)
        do {
            try check(result, handle)
        } catch {
            PQclear(result)
            throw error
        }
        guard let result else { throw StoreError.failure("PostgreSQL returned no result") }
        return result
    }

    /// The result of the statement just sent (the caller `PQclear`s it; nil when libpq has
    /// none, the connection being lost), read as `PQexec` would, but waiting for the server at
    /// most `answerTimeout` seconds. Past that the connection is closed and the call throws.
    private func awaitResult(_ handle: OpaquePointer) throws -> OpaquePointer? {
        let deadline = answerTimeout.map { ContinuousClock.now.advanced(by: .seconds($0)) }
        var kept: OpaquePointer?
        while true {
            while PQisBusy(handle) == 1 {
                var wait: Int32 = -1
                if let deadline {
                    let left = ContinuousClock.now.duration(to: deadline) / .seconds(1)
                    guard left > 0 else {
                        PQclear(kept)
                        close()
                        throw StoreError.unavailable("PostgreSQL did not answer within \(answerTimeout ?? 0) s; the connection was closed")
                    }
                    wait = Int32(clamping: Int((left * 1000).rounded(.up)))
                }
                var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
                let ready = poll(&descriptor, 1, wait)
                if ready == 0 || (ready < 0 && errno == EINTR) { continue }
                // Input, a closed socket or a failed poll: read; a lost connection shows in PQgetResult's result.
                if PQconsumeInput(handle) == 0 { break }
            }
            guard let result = PQgetResult(handle) else { return kept }
            // As PQexec: the last result, but an error once seen stays the answer.
            if let previous = kept, PQresultStatus(previous) == PGRES_FATAL_ERROR {
                PQclear(result)
            } else {
                PQclear(kept)
                kept = result
            }
        }
    }

    private func check(_ result: OpaquePointer?, _ handle: OpaquePointer) throws {
        guard let result else {
            throw PostgresConnection.error(sqlState: nil, message: PostgresConnection.message(PQerrorMessage(handle)), connectionLost: PQstatus(handle) != CONNECTION_OK)
        }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return
        default:
            let sqlState = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            throw PostgresConnection.error(
                sqlState: sqlState,
                message: PostgresConnection.message(PQresultErrorMessage(result)),
                connectionLost: PQstatus(handle) != CONNECTION_OK
            )
        }
    }

    private static func message(_ text: UnsafePointer<CChar>?) -> String {
        guard let text else { return "unknown error" }
        let message = String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
        return message.replacingOccurrences(of: "\n", with: " ")
    }

    /// Maps a failed statement onto the stores' error vocabulary.
    static func error(sqlState: String?, message: String, connectionLost: Bool) -> StoreError {
        if connectionLost {
            return .unavailable("PostgreSQL connection lost: \(message)")
        }
        guard let sqlState else { return .failure("PostgreSQL: \(message)") }
        switch sqlState {
        case "23505":
            return .duplicate(message)
        case "57014", "57P01", "57P02", "57P03", "40001", "40P01", "55P03":
            // Cancelled (statement timeout), server shutting down or starting, serialization
            // failure, deadlock, lock not available: retry later.
            return .unavailable("PostgreSQL \(sqlState): \(message)")
        default:
            if sqlState.hasPrefix("08") || sqlState.hasPrefix("53") {
                // Connection exception; insufficient resources (too many connections, …).
                return .unavailable("PostgreSQL \(sqlState): \(message)")
            }
            return .failure("PostgreSQL \(sqlState): \(message)")
        }
    }
}
