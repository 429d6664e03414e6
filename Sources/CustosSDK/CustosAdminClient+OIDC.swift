import CustosAPI
import Foundation

extension CustosAdminClient {
    /// Registers an OpenID Connect client (admin key); a confidential client's secret is in
    /// this answer only.
    public func createOIDCClient(_ request: CreateOIDCClientRequest) async throws -> OIDCClientInfo {
        try await transport.call(Endpoints.createOIDCClient, body: request, bearer: apiKey)
    }

    public func oidcClients() async throws -> OIDCClientList {
        try await transport.call(Endpoints.oidcClients, bearer: apiKey)
    }

    public func oidcClient(_ id: String) async throws -> OIDCClientInfo {
        try await transport.call(Endpoints.oidcClient, id, bearer: apiKey)
    }

    /// Deletes the client and every grant and token it holds.
    public func deleteOIDCClient(_ id: String) async throws {
        _ = try await transport.call(Endpoints.deleteOIDCClient, id, bearer: apiKey)
    }

    /// A one-time code that binds a new device to the user outside any login (a registration link).
    public func issueRegistrationCode(_ userID: String) async throws -> RegistrationCodeInfo {
        try await transport.call(Endpoints.issueRegistrationCode, userID, bearer: apiKey)
    }
}
