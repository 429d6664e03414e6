import CLibPQ
import CustosCore
import Foundation

/// PostgreSQL over libpq: a small pool of connections, each reconnecting on its next use
/// after a failure, parametrized statements only, binary parameters and results.
final class PostgresDatabase: SQLDatabase, @unchecked Sendable {
    let dialect = SQLDialect.postgresql
    let location: String
    let options: PostgresOptions
    private let pool: BlockingPool<PostgresConnection>

    /// Validates `url` (a libpq URI `postgresql://…` or `postgres://…`) without connecting.
    init(url: String, options: PostgresOptions = PostgresOptions()) throws {
        if let schema = options.schema, !PostgresOptions.isValidSchemaName(schema) {
            throw StoreError.failure("invalid PostgreSQL schema name \"\(schema)\"")
        }
        let parsed = try PostgresDatabase.parse(url)
        let (keywords, values) = PostgresDatabase.connectionParameters(parsed, options: options)
        self.options = options
        self.location = PostgresDatabase.redacted(parsed, schema: options.schema)
        self.pool = BlockingPool(
            name: "PostgreSQL pool",
            capacity: max(1, options.poolSize),
            make: { PostgresConnection(keywords: keywords, values: values) },
            destroy: { $0.close() }
        )
    }

    deinit {
        close()
    }

    private func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let connection = try pool.acquire(timeout: options.acquireTimeoutSeconds)
        defer { pool.release(connection) }
        connection.answerTimeout = options.answerTimeoutSeconds
        try connection.ensureReady()
        return try body(connection)
    }

    func read<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try withConnection { try body($0) }
    }

    func write<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        // One statement in autocommit mode is atomic on its own.
        try withConnection { try body($0) }
    }

    func transaction<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try withConnection { connection in
            try connection.executeScript("BEGIN")
            do {
                let result = try body(connection)
                try connection.executeScript("COMMIT")
                return result
            } catch {
                connection.rollbackQuietly()
                throw error
            }
        }
    }

    func close() {
        pool.close()
    }

    // MARK: Connection parameters

    /// The keywords the URL sets explicitly, in order.
    private static func parse(_ url: String) throws -> [(String, String)] {
        var error: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(url, &error) else {
            let detail = error.map { String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines) } ?? "out of memory"
            PQfreemem(error)
            throw StoreError.failure("invalid PostgreSQL URL: \(detail)")
        }
        defer { PQconninfoFree(options) }
        var pairs: [(String, String)] = []
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val {
                pairs.append((String(cString: keyword), String(cString: value)))
            }
            option += 1
        }
        return pairs
    }

    /// The URL's keywords plus defaults from `options` for those it leaves out; `options`
    /// (server settings) concatenates ours first and the URL's after, so the URL's win.
    private static func connectionParameters(_ parsed: [(String, String)], options: PostgresOptions) -> ([String], [String]) {
        var keywords = parsed.map(\.0)
        var values = parsed.map(\.1)
        func setDefault(_ keyword: String, _ value: String) {
            if !keywords.contains(keyword) {
                keywords.append(keyword)
                values.append(value)
            }
        }
        setDefault("connect_timeout", String(max(1, options.connectTimeoutSeconds)))
        setDefault("application_name", options.applicationName)
        // Detect a dead TCP peer instead of waiting on it forever (ignored on unix sockets).
        setDefault("keepalives", "1")
        setDefault("keepalives_idle", "30")
        setDefault("keepalives_interval", "10")
        setDefault("keepalives_count", "3")

        var settings = ["-c statement_timeout=\(max(0, options.statementTimeoutMilliseconds))"]
        // A connection left idle inside a transaction would hold its locks forever.
        settings.append("-c idle_in_transaction_session_timeout=60000")
        if let schema = options.schema {
            settings.append("-c search_path=\(schema)")
        }
        if let index = keywords.firstIndex(of: "options") {
            values[index] = (settings + [values[index]]).joined(separator: " ")
        } else {
            keywords.append("options")
            values.append(settings.joined(separator: " "))
        }
        return (keywords, values)
    }

    /// `postgresql://user@host:port/dbname` without the password, for logs.
    private static func redacted(_ parsed: [(String, String)], schema: String?) -> String {
        func value(_ keyword: String) -> String? { parsed.last { $0.0 == keyword }?.1 }
        var text = "postgresql://"
        if let user = value("user") { text += "\(user)@" }
        text += value("host") ?? value("hostaddr") ?? ""
        if let port = value("port") { text += ":\(port)" }
        text += "/\(value("dbname") ?? "")"
        if let schema { text += " (schema \(schema))" }
        return text
    }
}
