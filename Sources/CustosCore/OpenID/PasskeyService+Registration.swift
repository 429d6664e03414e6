import CustosAPI
import Foundation

/// What a browser or platform authenticator is asked to create (WebAuthn
/// `PublicKeyCredentialCreationOptions` in short).
public struct PasskeyRegistrationChallenge: Equatable, Sendable {
    public var registrationID: String
    public var challenge: Data
    public var rpID: String
    public var origin: String
    public var userID: String
    public var expiresAt: Date
}

extension PasskeyService {
    static let registrationPurpose = "passkey_registration"
    /// A credential id longer than this would not fit a device id (`pk_` + base64url).
    static let maximumCredentialIDBytes = 93

    /// The registration ceremony's first step, for the signed-in user: a challenge the
    /// authenticator signs into its attestation (single use, `challengeLifetime`).
    public func beginRegistration(userID: String) throws -> PasskeyRegistrationChallenge {
        let now = clock.now()
        let challenge = Data(random.bytes(count: 32))
        let registrationID = "pr_" + random.hexID(bytes: 16)
        let expiresAt = now.addingTimeInterval(policy.challengeLifetime)
        try store.issue(SingleUseToken(purpose: Self.registrationPurpose, digest: digester.digest(registrationID), subject: userID,
                                       payload: digester.digest(bytes: challenge), expiresAt: expiresAt))
        return PasskeyRegistrationChallenge(registrationID: registrationID, challenge: challenge, rpID: policy.rpID, origin: policy.origin,
                                            userID: userID, expiresAt: expiresAt)
    }

    /// The second step: the authenticator's attestation (`none`, or `packed` self-attestation),
    /// checked by `WebAuthnVerifier.verifyRegistration`; the credential becomes a device of the
    /// user (id `pk_` + the credential id in base64url), which signs in as a bound device does.
    public func completeRegistration(userID: String, registrationID: String, attestation: WebAuthnAttestation,
                                            name: String) throws -> Device {
        try InputRules.checkToken(registrationID, field: "registration_id")
        let deviceName = try InputRules.checkName(name, field: "name")
        let now = clock.now()
        guard let issued = try store.consume(purpose: Self.registrationPurpose, digest: digester.digest(registrationID), now: now),
              issued.subject == userID, !issued.payload.isEmpty else {
            throw OIDCError.authorizationNotFound
        }
        let challengeDigest = issued.payload
        let credential: RegisteredCredential
        do {
            credential = try webAuthn.verifyRegistration(attestation, challengeDigest: challengeDigest, requireUserVerification: true)
        } catch let failure as WebAuthnFailure {
            throw OIDCError.assertionRejected(failure.message)
        } catch let failure as WebAuthnRegistrationFailure {
            throw OIDCError.invalid("attestation_object", failure.message)
        }
        guard credential.credentialID.count <= Self.maximumCredentialIDBytes else {
            throw OIDCError.invalid("credential", "ids longer than \(Self.maximumCredentialIDBytes) bytes are not accepted")
        }
        let device = Device(id: "pk_" + credential.credentialID.base64URLEncodedString, userID: userID, name: deviceName,
                            publicKeyJWK: credential.publicKey.jwkJSON, keyThumbprint: try identity.keys.thumbprint(of: credential.publicKey),
                            createdAt: now, signCount: credential.signCount, boundBy: .passkey)
        do {
            try store.atomically {
                try store.addDevice(device)
                try audit?.record(.deviceRegistered, userID: userID, details: ["device_id": device.id, "proof": "passkey_" + credential.format])
                try identity.signalBinding(device, now: now)
            }
        } catch StoreError.duplicate {
            throw IdentityError.deviceKeyInUse
        }
        return device
    }
}
