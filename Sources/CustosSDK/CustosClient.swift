import CustosAPI
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The entry point of the Custos SDK.
///
/// ```swift
/// let client = try CustosClient(configuration: .init(serverURL: URL(string: "https://auth.example.com")!))
/// let health = try await client.health()
/// ```
public final class CustosClient: Sendable {
    public struct Configuration: Sendable {
        /// The server's base URL, e.g. `http://127.0.0.1:8080`.
        public var serverURL: URL
        /// Per-request timeout.
        public var timeout: TimeInterval

        public init(serverURL: URL, timeout: TimeInterval = 30) {
            self.serverURL = serverURL
            self.timeout = timeout
        }
    }

    public let configuration: Configuration
    private let transport: HTTPTransport

    public init(configuration: Configuration) throws {
        guard let scheme = configuration.serverURL.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw CustosError.invalidConfiguration("serverURL must be an http or https URL")
        }
        self.configuration = configuration
        transport = HTTPTransport(baseURL: configuration.serverURL, timeout: configuration.timeout)
    }

    /// `GET /healthz`: whether the server process is alive, and its version.
    public func health() async throws -> HealthStatus {
        try await transport.get("/healthz")
    }

    /// `GET /readyz`: whether the server can serve (its database answers). A server that is
    /// up but whose database is not throws a `CustosError` with code `database_unavailable`.
    public func readiness() async throws -> ReadinessStatus {
        try await transport.get("/readyz")
    }
}
