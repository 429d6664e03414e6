import CustosAPI
import CustosCore
import CustosHTTP
import Foundation

/// The relying-party / administrator API, authenticated by API keys.
enum AdminRoutes {
    static func register(on router: inout Router, identity: IdentityService, apiKeys: APIKeyService, clock: any Clock) {
        router.post("/v1/admin/api-keys") { request in
            _ = try RequestAuthentication.apiKey(request, apiKeys, scope: .admin)
            let body = try request.wire(CreateAPIKeyRequest.self)
            guard let scope = APIKey.Scope(rawValue: body.scope) else {
                throw IdentityError.invalidInput(field: "scope", reason: "must be admin or rp")
            }
            let (key, secret) = try apiKeys.create(scope: scope, label: body.label)
            return try .wire(WireMapping.apiKey(key, secret: secret), status: 201)
        }
        router.get("/v1/admin/api-keys") { request in
            _ = try RequestAuthentication.apiKey(request, apiKeys, scope: .admin)
            return try .wire(APIKeyList(apiKeys: try apiKeys.list().map { WireMapping.apiKey($0) }))
        }
        router.delete("/v1/admin/api-keys/{id}") { request in
            _ = try RequestAuthentication.apiKey(request, apiKeys, scope: .admin)
            try apiKeys.revoke(id: try request.parameter("id"))
            return .noContent()
        }

        router.post("/v1/users") { request in
            _ = try RequestAuthentication.apiKey(request, apiKeys, scope: .rp)
            let body = try request.wire(CreateUserRequest.self)
            let (user, code) = try identity.createUser(id: body.userID)
            return try .wire(CreatedUser(user: WireMapping.user(user, now: clock.now()), activation: WireMapping.activation(code)),
                             status: 201)
        }
        router.get("/v1/users") { request in
            _ = try RequestAuthentication.apiKey(request, apiKeys, scope: .rp)
            guard let limit = Int(request.query["limit"] ?? "100") else {
                throw IdentityError.invalidInput(field: "limit", reason: "must be an integer")
            }
            let users = try identity.users(after: request.query["after"], limit: limit)
            let now = clock.now()
            return try .wire(UserList(users: users.map { WireMapping.user($0, now: now) },
                                      nextAfter: users.count == limit ? users.last?.id : nil))
        }
        router.get("/v1/users/{id}") { request in
            _ = try RequestAuthentication.apiKey(request, apiKeys, scope: .rp)
            return try .wire(WireMapping.user(try identity.user(id: request.parameter("id")), now: clock.now()))
        }
        router.delete("/v1/users/{id}") { request in
            _ = try RequestAuthentication.apiKey(request, apiKeys, scope: .rp)
            try identity.deleteUser(id: try request.parameter("id"))
            return .noContent()
        }
        for (action, apply) in userActions(identity) {
            router.post("/v1/users/{id}/\(action)") { request in
                _ = try RequestAuthentication.apiKey(request, apiKeys, scope: .rp)
                return try .wire(WireMapping.user(try apply(request.parameter("id")), now: clock.now()))
            }
        }
        router.post("/v1/users/{id}/activation-code") { request in
            _ = try RequestAuthentication.apiKey(request, apiKeys, scope: .rp)
            return try .wire(WireMapping.activation(try identity.issueActivationCode(userID: request.parameter("id"))), status: 201)
        }
        router.get("/v1/users/{id}/devices") { request in
            _ = try RequestAuthentication.apiKey(request, apiKeys, scope: .rp)
            return try .wire(DeviceList(devices: try identity.devices(userID: request.parameter("id")).map(WireMapping.device)))
        }
        router.delete("/v1/users/{id}/devices/{device}") { request in
            _ = try RequestAuthentication.apiKey(request, apiKeys, scope: .rp)
            try identity.revokeDevice(userID: try request.parameter("id"), deviceID: try request.parameter("device"))
            return .noContent()
        }
    }

    private static func userActions(_ identity: IdentityService) -> [(String, @Sendable (String) throws -> User)] {
        [
            ("disable", { try identity.setDisabled(true, userID: $0) }),
            ("enable", { try identity.setDisabled(false, userID: $0) }),
            ("unlock", { try identity.unlock(userID: $0) }),
        ]
    }
}
