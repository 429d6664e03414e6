import CustosAPI
import Foundation

/// Builds the WebAuthn assertion a bound device answers a sign-in challenge with: the same
/// bytes a platform authenticator would produce, signed by the device key.
enum WebAuthnSigning {
    /// User present and user verified (the app's local authentication approved).
    static let flags: UInt8 = 0x01 | 0x04

    static func assertion(challenge: DeviceSignInChallengeResponse, deviceID: String, key: any DeviceSigningKey) throws -> WebAuthnAssertionBody {
        var authenticatorData = SDKCrypto.sha256(Data(challenge.rpID.utf8))
        authenticatorData.append(flags)
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
