import CustosAPI
import CustosCore
import CustosHTTP
import Foundation

/// The relying-party / administrator API, authenticated by API keys. A relying party's key
/// manages the users it created; an administrator's key every user
/// (`IdentityService.user(id:managedBy:)`): another relying party's user reads as not found.
enum AdminRoutes {
    static func register(on routes: inout EndpointRouter, _ groups: AccessGroups, identity: IdentityService, apiKeys: APIKeyService,
                         clock: any Clock) {
        routes.on(Endpoints.createAPIKey, groups.admin) { context, body in
            guard let scope = APIKey.Scope(rawValue: body.scope) else {
                throw IdentityError.invalidInput(field: "scope", reason: "must be admin or rp")
            }
            let (key, secret) = try apiKeys.create(scope: scope, label: body.label, actor: context.caller.id)
            return WireMapping.apiKey(key, secret: secret)
        }
        routes.on(Endpoints.apiKeys, groups.admin) { _, _ in
            APIKeyList(apiKeys: try apiKeys.list().map { WireMapping.apiKey($0) })
        }
        routes.on(Endpoints.revokeAPIKey, groups.admin) { context, _ in
            try apiKeys.revoke(id: try context.parameter("id"), actor: context.caller.id)
            return NoContent()
        }

        routes.on(Endpoints.createUser, groups.rp) { context, body in
            let (user, code) = try identity.createUser(id: body.userID, createdBy: context.caller.id)
            return CreatedUser(user: WireMapping.user(user, now: clock.now()), activation: WireMapping.activation(code))
        }
        routes.on(Endpoints.users, groups.rp) { context, _ in
            guard let limit = Int(context.request.query["limit"] ?? "100") else {
                throw IdentityError.invalidInput(field: "limit", reason: "must be an integer")
            }
            let users = try identity.users(after: context.request.query["after"], limit: limit, managedBy: context.caller)
            let now = clock.now()
            return UserList(users: users.map { WireMapping.user($0, now: now) }, nextAfter: users.count == limit ? users.last?.id : nil)
        }
        routes.on(Endpoints.user, groups.rp) { context, _ in
            WireMapping.user(try identity.user(id: context.parameter("id"), managedBy: context.caller), now: clock.now())
        }
        /// The `{id}` of a user the calling key manages.
        @Sendable func managed(_ context: RouteContext<APIKey>) throws -> String {
            try identity.user(id: context.parameter("id"), managedBy: context.caller).id
        }
        routes.on(Endpoints.deleteUser, groups.rp) { context, _ in
            try identity.deleteUser(id: try managed(context), actor: context.caller.id)
            return NoContent()
        }
        let userActions: [(Endpoint<NoContent, UserInfo>, @Sendable (String, String) throws -> User)] = [
            (Endpoints.disableUser, { try identity.setDisabled(true, userID: $0, actor: $1) }),
            (Endpoints.enableUser, { try identity.setDisabled(false, userID: $0, actor: $1) }),
            (Endpoints.unlockUser, { try identity.unlock(userID: $0, actor: $1) }),
            (Endpoints.expirePassword, { try identity.expirePassword(userID: $0, actor: $1) }),
        ]
        for (endpoint, apply) in userActions {
            routes.on(endpoint, groups.rp) { context, _ in
                WireMapping.user(try apply(managed(context), context.caller.id), now: clock.now())
            }
        }
        routes.on(Endpoints.issueActivationCode, groups.rp) { context, _ in
            WireMapping.activation(try identity.issueActivationCode(userID: managed(context), actor: context.caller.id))
        }
        routes.on(Endpoints.resetUser, groups.rp) { context, _ in
            WireMapping.activation(try identity.resetUser(id: managed(context), actor: context.caller.id))
        }
        routes.on(Endpoints.issueRegistrationCode, groups.rp) { context, _ in
            let userID = try managed(context)
            let issued = try identity.issueRegistrationCode(userID: userID, actor: context.caller.id)
            return RegistrationCodeInfo(userID: userID, registrationCode: issued.code, expiresAt: issued.expiresAt)
        }
        routes.on(Endpoints.userClaims, groups.rp) { context, _ in
            try identity.claims(userID: managed(context))
        }
        routes.on(Endpoints.setUserClaims, groups.rp) { context, body in
            try identity.setClaims(body, userID: managed(context), actor: context.caller.id)
        }
        routes.on(Endpoints.userDevices, groups.rp) { context, _ in
            DeviceList(devices: try identity.devices(userID: managed(context)).map(WireMapping.device))
        }
        routes.on(Endpoints.revokeDevice, groups.rp) { context, _ in
            try identity.revokeDevice(userID: try managed(context), deviceID: try context.parameter("device"), actor: context.caller.id)
            return NoContent()
        }
    }
}
