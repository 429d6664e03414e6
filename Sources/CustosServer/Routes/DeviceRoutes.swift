import CustosAPI
import CustosCore
import CustosHTTP
import Foundation

/// What the app calls: activation, login, password change, sessions.
enum DeviceRoutes {
    static func register(on router: inout Router, identity: IdentityService) {
        let policy = identity.policy
        router.post("/v1/activate") { request in
            let body = try request.wire(ActivateRequest.self)
            let outcome = try identity.activate(
                userID: body.userID, code: body.activationCode, password: body.password, deviceName: body.deviceName,
                deviceKey: try devicePublicKey(body.devicePublicKey))
            return try .wire(WireMapping.outcome(outcome, policy: policy), status: 201)
        }
        router.post("/v1/login/challenge") { request in
            let body = try request.wire(LoginChallengeRequest.self)
            let nonce = try identity.loginChallenge(userID: body.userID, deviceID: body.deviceID)
            return try .wire(LoginChallenge(nonce: nonce.nonce, expiresAt: nonce.expiresAt, passwordRequired: nonce.passwordRequired))
        }
        router.post("/v1/login") { request in
            let body = try request.wire(LoginRequest.self)
            let outcome = try identity.login(userID: body.userID, deviceID: body.deviceID, nonce: body.nonce,
                                             signature: body.signature, password: body.password,
                                             client: request.remoteAddress?.description)
            return try .wire(WireMapping.outcome(outcome, policy: policy))
        }
        router.post("/v1/password/change") { request in
            let body = try request.wire(ChangePasswordRequest.self)
            let authorization: PasswordChangeAuthorization
            if let token = body.passwordChangeToken {
                authorization = .changeToken(token)
            } else {
                authorization = .session(try RequestAuthentication.session(request, identity))
            }
            let outcome = try identity.changePassword(userID: body.userID, oldPassword: body.oldPassword,
                                                      newPassword: body.newPassword, authorization: authorization)
            return try .wire(WireMapping.outcome(outcome, policy: policy))
        }
        router.post("/v1/logout") { request in
            try identity.logout(try RequestAuthentication.session(request, identity))
            return .noContent()
        }
        router.get("/v1/sessions") { request in
            let session = try RequestAuthentication.session(request, identity)
            return try .wire(SessionList(sessions: try identity.sessions(userID: session.userID).map {
                WireMapping.session($0, token: nil, policy: policy)
            }))
        }
        router.delete("/v1/sessions/{id}") { request in
            let session = try RequestAuthentication.session(request, identity)
            try identity.revokeSession(userID: session.userID, sessionID: try request.parameter("id"))
            return .noContent()
        }
    }

    private static func devicePublicKey(_ jwk: PublicKeyJWK) throws -> DevicePublicKey {
        guard jwk.kty == "EC" else { throw IdentityError.invalidDeviceKey("kty must be EC") }
        guard jwk.crv == "P-256" else { throw IdentityError.invalidDeviceKey("crv must be P-256") }
        return DevicePublicKey(x: jwk.x, y: jwk.y)
    }
}
