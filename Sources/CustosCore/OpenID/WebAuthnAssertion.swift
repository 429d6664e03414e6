import CustosAPI
import Foundation

/// A WebAuthn assertion (Web Authentication Level 3, §7.2): what a bound device or a browser
/// passkey returns for `navigator.credentials.get`. Every field is the exact bytes signed.
public struct WebAuthnAssertion: Equatable, Sendable {
    /// The credential id: the device id for a bound device, the passkey's id for a browser.
    public var credentialID: String
    public var authenticatorData: Data
    public var clientDataJSON: Data
    /// ES256, ASN.1 DER.
    public var signature: Data

    public init(credentialID: String, authenticatorData: Data, clientDataJSON: Data, signature: Data) {
        self.credentialID = credentialID
        self.authenticatorData = authenticatorData
        self.clientDataJSON = clientDataJSON
        self.signature = signature
    }
}

/// Why an assertion was refused.
public enum WebAuthnFailure: Error, Equatable, Sendable {
    case malformed(String)
    case wrongType
    case wrongChallenge
    case wrongOrigin(String)
    case wrongRelyingParty
    case userNotPresent
    case userNotVerified
    case badSignature
    /// The signature counter did not move forward: the key may have been cloned.
    case counterWentBack(stored: UInt32, presented: UInt32)

    public var message: String {
        switch self {
        case .malformed(let reason): "the assertion is malformed: \(reason)"
        case .wrongType: "clientDataJSON.type must be webauthn.get"
        case .wrongChallenge: "the assertion signs another challenge"
        case .wrongOrigin(let origin): "the origin \(origin) is not this server's"
        case .wrongRelyingParty: "the authenticator data names another relying party (rpIdHash)"
        case .userNotPresent: "the authenticator did not test user presence (UP)"
        case .userNotVerified: "the authenticator did not verify the user (UV)"
        case .badSignature: "the signature does not verify under the credential's key"
        case .counterWentBack(let stored, let presented):
            "the signature counter went from \(stored) to \(presented): the credential may be cloned and is refused"
        }
    }
}

/// The parts of authenticator data an assertion carries (no attested credential data).
public struct AuthenticatorData: Equatable, Sendable {
    public static let userPresent: UInt8 = 0x01
    public static let userVerified: UInt8 = 0x04
    public static let attestedCredentialData: UInt8 = 0x40
    public static let extensionData: UInt8 = 0x80

    public var rpIDHash: Data
    public var flags: UInt8
    public var signCount: UInt32

    public init(rpIDHash: Data, flags: UInt8, signCount: UInt32) {
        self.rpIDHash = rpIDHash
        self.flags = flags
        self.signCount = signCount
    }

    public init(parsing bytes: Data) throws {
        let bytes = [UInt8](bytes)
        guard bytes.count >= 37 else { throw WebAuthnFailure.malformed("authenticator data is shorter than 37 bytes") }
        rpIDHash = Data(bytes[0..<32])
        flags = bytes[32]
        signCount = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// The 37 bytes an assertion signs (no extensions).
    public var encoded: Data {
        var out = rpIDHash
        out.append(flags)
        withUnsafeBytes(of: signCount.bigEndian) { out.append(contentsOf: $0) }
        return out
    }
}

/// The client data a WebAuthn client signs over (the fields a relying party checks).
public struct CollectedClientData: Codable, Equatable, Sendable {
    public var type: String
    /// base64url of the challenge bytes.
    public var challenge: String
    public var origin: String
    public var crossOrigin: Bool?

    public init(type: String, challenge: String, origin: String, crossOrigin: Bool? = nil) {
        self.type = type
        self.challenge = challenge
        self.origin = origin
        self.crossOrigin = crossOrigin
    }
}

/// Verifies WebAuthn assertions, the same way for a native bound device and a browser passkey.
public struct WebAuthnVerifier: Sendable {
    /// The relying party id (this server's host name).
    public let rpID: String
    /// The origins a client may report (this server's public origin).
    public let origins: [String]
    let keys: any DeviceKeyVerifier
    let digester: any SecretDigester

    public init(rpID: String, origins: [String], keys: any DeviceKeyVerifier, digester: any SecretDigester) {
        self.rpID = rpID
        self.origins = origins
        self.keys = keys
        self.digester = digester
    }

    /// Checks `assertion` against the challenge issued (kept as its SHA-256), the credential's
    /// key and its stored counter, and returns the new counter. The checks are those of §7.2
    /// steps 11 to 21.
    public func verify(_ assertion: WebAuthnAssertion, challengeDigest: Data, key: DevicePublicKey, storedSignCount: UInt32,
                       requireUserVerification: Bool) throws -> UInt32 {
        guard let client = try? JSONDecoder().decode(CollectedClientData.self, from: assertion.clientDataJSON) else {
            throw WebAuthnFailure.malformed("clientDataJSON is not JSON with type, challenge and origin")
        }
        guard client.type == "webauthn.get" else { throw WebAuthnFailure.wrongType }
        // Digests are compared, so the time taken tells nothing about the challenge's bytes.
        guard let presented = Data(base64URLEncoded: client.challenge),
              digester.digest(bytes: presented) == challengeDigest else {
            throw WebAuthnFailure.wrongChallenge
        }
        guard origins.contains(client.origin), client.crossOrigin != true else { throw WebAuthnFailure.wrongOrigin(client.origin) }
        let data = try AuthenticatorData(parsing: assertion.authenticatorData)
        guard data.rpIDHash == digester.digest(bytes: Data(rpID.utf8)) else { throw WebAuthnFailure.wrongRelyingParty }
        guard data.flags & AuthenticatorData.userPresent != 0 else { throw WebAuthnFailure.userNotPresent }
        if requireUserVerification, data.flags & AuthenticatorData.userVerified == 0 { throw WebAuthnFailure.userNotVerified }
        // §7.2 step 17: a credential that cannot be backed up cannot be backed up now.
        if data.flags & AuthenticatorData.backupEligible == 0, data.flags & AuthenticatorData.backedUp != 0 {
            throw WebAuthnFailure.malformed("the authenticator data sets BS (backed up) without BE (backup eligible)")
        }
        let signed = [UInt8](assertion.authenticatorData) + [UInt8](digester.digest(bytes: assertion.clientDataJSON))
        guard keys.verify(derSignature: [UInt8](assertion.signature), message: signed, key: key) else { throw WebAuthnFailure.badSignature }
        if data.signCount != 0 || storedSignCount != 0, data.signCount <= storedSignCount {
            throw WebAuthnFailure.counterWentBack(stored: storedSignCount, presented: data.signCount)
        }
        return data.signCount
    }
}
