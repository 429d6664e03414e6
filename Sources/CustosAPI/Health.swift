/// `GET /healthz`: the process is alive.
public struct HealthStatus: Codable, Equatable, Sendable {
    public var status: String
    public var version: String

    public init(status: String = "ok", version: String) {
        self.status = status
        self.version = version
    }
}

/// `GET /readyz`: the process can serve (its database answers).
public struct ReadinessStatus: Codable, Equatable, Sendable {
    public var status: String
    public var database: String

    public init(status: String, database: String) {
        self.status = status
        self.database = database
    }
}
