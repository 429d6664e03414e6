/// Settings of the PostgreSQL connection pool. Keywords given in the URL (for example
/// `connect_timeout`) win over these defaults.
public struct PostgresOptions: Sendable, Equatable {
    /// Connections opened at most (lazily, on demand).
    public var poolSize: Int
    /// libpq `connect_timeout`: how long a connection attempt may take while the server is
    /// unreachable before the call fails with `StoreError.unavailable`.
    public var connectTimeoutSeconds: Int
    /// How long a call waits for a free pooled connection.
    public var acquireTimeoutSeconds: Double
    /// Server-side `statement_timeout` for every statement (migrations excepted); 0 disables.
    public var statementTimeoutMilliseconds: Int
    /// How long a statement waits for the server's answer before the connection is given up:
    /// the statement timeout and a second more (a server that answers at all cancels its own
    /// statement by then), or 30 s without a statement timeout.
    public var answerTimeoutSeconds: Double {
        statementTimeoutMilliseconds > 0 ? Double(statementTimeoutMilliseconds) / 1000 + 1 : 30
    }
    /// A schema to keep the tables in (created by the migrations, put first on
    /// `search_path`), or nil for the server's default (`public`). Lowercase letters, digits
    /// and `_`, starting with a letter or `_`, at most 63 characters.
    public var schema: String?
    /// libpq `application_name`, shown in `pg_stat_activity`.
    public var applicationName: String

    public init(
        poolSize: Int = 4,
        connectTimeoutSeconds: Int = 2,
        acquireTimeoutSeconds: Double = 5,
        statementTimeoutMilliseconds: Int = 5000,
        schema: String? = nil,
        applicationName: String = "custos"
    ) {
        self.poolSize = poolSize
        self.connectTimeoutSeconds = connectTimeoutSeconds
        self.acquireTimeoutSeconds = acquireTimeoutSeconds
        self.statementTimeoutMilliseconds = statementTimeoutMilliseconds
        self.schema = schema
        self.applicationName = applicationName
    }

    /// True when `name` is a schema name these options accept.
    static func isValidSchemaName(_ name: String) -> Bool {
        let scalars = Array(name.unicodeScalars)
        guard let first = scalars.first, scalars.count <= 63 else { return false }
        func isLower(_ c: Unicode.Scalar) -> Bool { c >= "a" && c <= "z" }
        func isDigit(_ c: Unicode.Scalar) -> Bool { c >= "0" && c <= "9" }
        guard isLower(first) || first == "_" else { return false }
        return scalars.allSatisfy { isLower($0) || isDigit($0) || $0 == "_" }
    }
}
