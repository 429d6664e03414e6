import CustosAPI
import CustosCore
import CustosHTTP
import Foundation

/// What the app calls: activation, login, password change, sessions.
enum DeviceRoutes {
    static func register(on routes: inout EndpointRouter, _ groups: AccessGroups, identity: IdentityService,
                         notifications: NotificationService?) {
        let policy = identity.policy
        let approvals = notifications.map { DeviceApprovalService(identity: identity, notifications: $0) }
        @Sendable func approvalService() throws -> DeviceApprovalService {
            guard let approvals else {
                throw HTTPError(status: 503, code: "notifications_unavailable", message: "Device approvals need notifications, which are not enabled on this server.")
            }
            return approvals
        }
        routes.on(Endpoints.activate, groups.signIn) { context, body in
            let outcome = try identity.activate(
                userID: body.userID, code: body.activationCode, password: body.password, deviceName: body.deviceName,
                deviceKey: try devicePublicKey(body.devicePublicKey), client: context.request.remoteAddress?.limitKey)
            return WireMapping.outcome(outcome, policy: policy)
        }
        routes.on(Endpoints.registerDevice, groups.signIn) { context, body in
            let outcome = try identity.registerDevice(userID: body.userID,
                                                      proof: try registrationProof(password: body.password, code: body.registrationCode),
                                                      deviceName: body.deviceName,
                                                      deviceKey: try devicePublicKey(body.devicePublicKey),
                                                      client: context.request.remoteAddress?.limitKey)
            if let device = outcome.device, outcome.status == .success || outcome.status == .passwordExpired {
                try approvals?.announce(device)
            }
            return WireMapping.outcome(outcome, policy: policy)
        }
        routes.on(Endpoints.requestDeviceApproval, groups.signIn) { context, body in
            let ticket = try approvalService().request(userID: body.userID, deviceName: body.deviceName,
                                                       deviceKey: try devicePublicKey(body.devicePublicKey),
                                                       proof: try registrationProof(password: body.password, code: body.registrationCode),
                                                       client: context.request.remoteAddress?.limitKey)
            return DeviceApprovalTicketInfo(requestToken: ticket.requestToken, number: ticket.number, expiresAt: ticket.expiresAt)
        }
        routes.on(Endpoints.claimDeviceApproval, groups.signIn) { _, body in
            WireMapping.outcome(try approvalService().claim(requestToken: body.requestToken), policy: policy)
        }
        routes.on(Endpoints.loginChallenge, groups.signIn) { _, body in
            let nonce = try identity.loginChallenge(userID: body.userID, deviceID: body.deviceID)
            return LoginChallenge(nonce: nonce.nonce, expiresAt: nonce.expiresAt, passwordRequired: nonce.passwordRequired)
        }
        routes.on(Endpoints.login, groups.signIn) { context, body in
            let outcome = try identity.login(userID: body.userID, deviceID: body.deviceID, nonce: body.nonce,
                                             signature: body.signature, password: body.password,
                                             client: context.request.remoteAddress?.limitKey)
            return WireMapping.outcome(outcome, policy: policy)
        }
        routes.on(Endpoints.changePassword, groups.passwordChange) { context, body in
            let authorization: PasswordChangeAuthorization
            if let token = body.passwordChangeToken {
                authorization = .changeToken(token)
            } else if let session = context.caller {
                authorization = .session(session)
            } else {
                throw IdentityError.invalidSession
            }
            let outcome = try identity.changePassword(userID: body.userID, oldPassword: body.oldPassword,
                                                      newPassword: body.newPassword, authorization: authorization)
            return WireMapping.outcome(outcome, policy: policy)
        }
        routes.on(Endpoints.logout, groups.session) { context, _ in
            try identity.logout(context.caller)
            return NoContent()
        }
        routes.on(Endpoints.sessions, groups.session) { context, _ in
            SessionList(sessions: try identity.sessions(userID: context.caller.userID).map {
                WireMapping.session($0, token: nil, policy: policy)
            })
        }
        routes.on(Endpoints.myDevices, groups.session) { context, _ in
            DeviceList(devices: try identity.devices(userID: context.caller.userID).map(WireMapping.device))
        }
        routes.on(Endpoints.revokeMyDevice, groups.stepUp) { context, body in
            WireMapping.outcome(try identity.revokeOwnDevice(session: context.caller, deviceID: try context.parameter("id"), password: body.password),
                                policy: policy)
        }
        routes.on(Endpoints.revokeSession, groups.session) { context, _ in
            try identity.revokeSession(userID: context.caller.userID, sessionID: try context.parameter("id"), by: context.caller)
            return NoContent()
        }
    }

    /// What a new device proves the user with: exactly one of the password and a registration code.
    private static func registrationProof(password: String?, code: String?) throws -> DeviceRegistrationProof {
        switch (password, code) {
        case (let password?, nil): .password(password)
        case (nil, let code?): .registrationCode(code)
        default: throw IdentityError.invalidInput(field: "password", reason: "or registration_code: send exactly one")
        }
    }

    private static func devicePublicKey(_ jwk: PublicKeyJWK) throws -> DevicePublicKey {
        guard jwk.kty == "EC" else { throw IdentityError.invalidDeviceKey("kty must be EC") }
        guard jwk.crv == "P-256" else { throw IdentityError.invalidDeviceKey("crv must be P-256") }
        return DevicePublicKey(x: jwk.x, y: jwk.y)
    }
}
