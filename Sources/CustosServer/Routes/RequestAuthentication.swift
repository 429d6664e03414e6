import CustosCore
import CustosHTTP
import Foundation

/// Reads credentials from `Authorization: Bearer …`.
enum RequestAuthentication {
    static func bearer(_ request: Request) -> String? {
        guard let value = request.headers["Authorization"] else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return String(parts[1]).trimmingCharacters(in: .whitespaces)
    }

    static func apiKey(_ request: Request, _ service: APIKeyService, scope: APIKey.Scope) throws -> APIKey {
        guard let secret = bearer(request) else { throw IdentityError.invalidAPIKey }
        return try service.authenticate(secret: secret, requiring: scope)
    }

    static func session(_ request: Request, _ identity: IdentityService) throws -> Session {
        guard let token = bearer(request) else { throw IdentityError.invalidSession }
        return try identity.authenticateSession(token: token)
    }
}
