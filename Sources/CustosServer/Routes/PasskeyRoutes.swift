import CustosAPI
import CustosCore
import CustosHTTP
import Foundation

/// Passkeys: the signed-in user registers one (the password again), and signs in to Custos
/// with it without a user id. Served with the OpenID provider, whose relying party id and
/// origin they share.
enum PasskeyRoutes {
    static func register(on routes: inout EndpointRouter, _ groups: AccessGroups, passkeys: PasskeyService?, identity: IdentityService) {
        @Sendable func service() throws -> PasskeyService {
            guard let passkeys else { throw HTTPError(status: 404, code: "not_found", message: "This server runs no OpenID provider.") }
            return passkeys
        }
        // The password again: a stolen session alone cannot add a lasting credential. Its failures
        // count against the user, as any step-up's (the session proves a bound device).
        routes.on(Endpoints.beginPasskeyRegistration, groups.stepUp) { context, body in
            try identity.requireTrustedDevice(context.caller)
            let checked = try identity.verifyStepUpPassword(userID: context.caller.userID, password: body.password)
            guard checked.status == .success else { throw OIDCError.passwordRejected(checked) }
            let options = try service().beginRegistration(userID: context.caller.userID)
            return PasskeyRegistrationOptions(registrationID: options.registrationID, challenge: options.challenge.base64URLEncodedString,
                                              rpID: options.rpID, origin: options.origin, userID: options.userID, expiresAt: options.expiresAt)
        }
        routes.on(Endpoints.completePasskeyRegistration, groups.stepUp) { context, body in
            guard let attestation = Data(base64URLEncoded: body.attestationObject), attestation.count <= 16384,
                  let clientData = Data(base64URLEncoded: body.clientDataJSON), clientData.count <= 4096 else {
                throw OIDCError.invalid("attestation", "attestation_object and client_data_json must be base64url")
            }
            let device = try service().completeRegistration(
                userID: context.caller.userID, registrationID: try context.parameter("id"),
                attestation: WebAuthnAttestation(attestationObject: attestation, clientDataJSON: clientData), name: body.name)
            return WireMapping.device(device)
        }
        routes.on(Endpoints.beginPasskeyLogin, groups.signIn) { _, _ in
            let started = try service().beginLogin()
            return PasskeyLoginChallengeResponse(challenge: started.challenge.base64URLEncodedString, rpID: started.rpID,
                                                 expiresAt: started.expiresAt)
        }
        routes.on(Endpoints.passkeyLogin, groups.signIn) { context, body in
            let outcome = try service().login(try OIDCRoutes.assertion(body.credentialID, body.authenticatorData, body.clientDataJSON, body.signature),
                                                  password: body.password, client: context.request.remoteAddress?.limitKey)
            return WireMapping.outcome(outcome, policy: identity.policy)
        }
    }
}
