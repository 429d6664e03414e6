import CustosAPI
import Foundation

/// Builds the WebAuthn assertion a bound device answers a sign-in challenge with: the same
/// bytes a platform authenticator would produce, signed by the device key.
enum WebAuthnSigning {
    /// User present, and user verified only when the app's local authentication approved (the
    /// server records that bit as the app's word and claims nothing from it: possession only).
    static func flags(userVerified: Bool) -> UInt8 { userVerified ? 0x01 | 0x04 : 0x01 }

    static func assertion(challenge: DeviceSignInChallengeResponse, deviceID: String, key: any DeviceSigningKey,
                          userVerified: Bool) throws -> WebAuthnAssertionBody {
        var authenticatorData = SDKCrypto.sha256(Data(challenge.rpID.utf8))
        authenticatorData.append(flags(userVerified: userVerified))
        // A device key keeps no signature counter (like platform passkeys): 0.
        authenticatorData.append(contentsOf: [0, 0, 0, 0])
        let clientData: [String: Any] = ["type": "webauthn.get", "challenge": challenge.challenge, "origin": challenge.origin, "crossOrigin": false]
        let clientDataJSON = try JSONSerialization.data(withJSONObject: clientData, options: [.sortedKeys, .withoutEscapingSlashes])
        let raw = try key.sign(authenticatorData + SDKCrypto.sha256(clientDataJSON))
        return WebAuthnAssertionBody(credentialID: deviceID, authenticatorData: authenticatorData.base64URLEncodedString,
                                     clientDataJSON: clientDataJSON.base64URLEncodedString,
                                     signature: try SDKCrypto.derSignature(raw: raw).base64URLEncodedString)
    }
}
