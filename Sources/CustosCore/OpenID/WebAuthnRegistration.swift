import CustosAPI
import Foundation

/// A WebAuthn attestation (Web Authentication Level 3, §7.1): what a browser passkey or a bound
/// device returns for `navigator.credentials.create`. Both fields are the exact bytes received.
public struct WebAuthnAttestation: Equatable, Sendable {
    /// CBOR: `{fmt, attStmt, authData}`.
    public var attestationObject: Data
    public var clientDataJSON: Data

    public init(attestationObject: Data, clientDataJSON: Data) {
        self.attestationObject = attestationObject
        self.clientDataJSON = clientDataJSON
    }
}

/// A credential that passed the registration ceremony: what is stored to check its assertions.
public struct RegisteredCredential: Equatable, Sendable {
    public var credentialID: Data
    /// The credential's ES256 key, already checked to be a point on P-256.
    public var publicKey: DevicePublicKey
    /// The counter at registration; the first assertion must move it forward (or both stay 0).
    public var signCount: UInt32
    /// The attestation format: `none` or `packed` (self-attestation).
    public var format: String
    /// The authenticator model's 16-byte AAGUID; all zeros for `none` on most platforms. Not
    /// attested (no certificate chain is checked), so it informs and never decides.
    public var aaguid: Data
    /// BE: the credential may be synced to other devices (a multi-device passkey).
    public var backupEligible: Bool
    /// BS: the credential is synced now.
    public var backedUp: Bool
    /// UV at registration.
    public var userVerified: Bool

    public init(credentialID: Data, publicKey: DevicePublicKey, signCount: UInt32, format: String, aaguid: Data,
                backupEligible: Bool, backedUp: Bool, userVerified: Bool) {
        self.credentialID = credentialID
        self.publicKey = publicKey
        self.signCount = signCount
        self.format = format
        self.aaguid = aaguid
        self.backupEligible = backupEligible
        self.backedUp = backedUp
        self.userVerified = userVerified
    }
}

/// Why a registration was refused for its attestation or its key, rather than for the checks
/// it shares with an assertion (those throw `WebAuthnFailure`).
public enum WebAuthnRegistrationFailure: Error, Equatable, Sendable {
    /// An attestation format or a key algorithm this server does not take.
    case unsupportedFormat(String)
    /// A known format used in a way this server cannot check (an attestation certificate chain).
    case attestationNotSupported(String)
    /// The attestation statement is malformed or its signature does not verify.
    case invalidAttestation(String)

    public var message: String {
        switch self {
        case .unsupportedFormat(let reason): "the credential cannot be registered: \(reason)"
        case .attestationNotSupported(let reason): "the attestation cannot be checked: \(reason)"
        case .invalidAttestation(let reason): "the attestation is invalid: \(reason)"
        }
    }
}

extension AuthenticatorData {
    /// BE: backup eligible.
    public static let backupEligible: UInt8 = 0x08
    /// BS: backed up.
    public static let backedUp: UInt8 = 0x10
}

/// Authenticator data as registration carries it: the 37-byte head, then the attested
/// credential data (§6.5.1), then extensions when ED is set, and nothing else.
struct AttestedAuthenticatorData {
    /// Credential ids longer than this are refused (§5.8.3: at most 1023 bytes).
    static let maximumCredentialIDLength = 1023

    var head: AuthenticatorData
    var aaguid: Data
    var credentialID: Data
    var credentialPublicKey: CBORValue

    init(parsing data: Data) throws {
        let bytes = [UInt8](data)
        head = try AuthenticatorData(parsing: data)
        guard head.flags & AuthenticatorData.attestedCredentialData != 0 else {
            throw WebAuthnFailure.malformed("the authenticator data carries no attested credential data (AT flag)")
        }
        guard bytes.count >= 55 else { throw WebAuthnFailure.malformed("the attested credential data is truncated") }
        aaguid = Data(bytes[37..<53])
        let idLength = Int(bytes[53]) << 8 | Int(bytes[54])
        guard idLength > 0, idLength <= AttestedAuthenticatorData.maximumCredentialIDLength else {
            throw WebAuthnFailure.malformed(
                "the credential id must be 1 to \(AttestedAuthenticatorData.maximumCredentialIDLength) bytes, not \(idLength)")
        }
        var offset = 55
        guard bytes.count - offset >= idLength else { throw WebAuthnFailure.malformed("the credential id is truncated") }
        credentialID = Data(bytes[offset..<(offset + idLength)])
        offset += idLength
        // A COSE key nests one level; a little room, and no more, for what an authenticator sends.
        let key = try AttestedAuthenticatorData.cbor("the credential public key") {
            try CBORValue.decode(Data(bytes[offset...]), maximumDepth: 4)
        }
        credentialPublicKey = key.value
        offset += key.length
        if head.flags & AuthenticatorData.extensionData != 0 {
            // Extension outputs are not used, but must be well formed, so that the end of the
            // data is known and nothing can follow them unread.
            let extensions = try AttestedAuthenticatorData.cbor("the extensions") {
                try CBORValue.decode(Data(bytes[offset...]))
            }
            guard case .map = extensions.value else { throw WebAuthnFailure.malformed("the extensions are not a CBOR map") }
            offset += extensions.length
        }
        guard offset == bytes.count else {
            throw WebAuthnFailure.malformed("\(bytes.count - offset) unexpected bytes follow the authenticator data")
        }
    }

    /// Runs a CBOR decode, naming what was being read when it fails.
    static func cbor<T>(_ what: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as CBORError {
            throw WebAuthnFailure.malformed("\(what) is not valid CBOR: \(error.reason)")
        }
    }
}

extension WebAuthnVerifier {
    /// The attestation statements this server can check.
    private enum Statement {
        /// `none`: the authenticator (or the browser, at the relying party's request) vouches for nothing.
        case unattested
        /// `packed` without `x5c`: the credential signs its own creation, proving only that its
        /// private key exists alongside it.
        case packedSelf(signature: Data)
    }

    /// Checks a registration (§7.1 steps 5 to 22) against the challenge issued (kept as its
    /// digest) and returns the credential to store.
    ///
    /// Only ES256 credentials on P-256 are taken, since assertions are checked with the same
    /// P-256 verifier as bound devices, and only the `none` and `packed` self-attestation formats,
    /// since no attestation trust anchors are kept: a certificate chain could not be judged, and
    /// accepting it unjudged would pretend to an assurance that is not there.
    ///
    /// Throws `WebAuthnFailure` for the checks an assertion shares (client data, relying party,
    /// flags, structure), `WebAuthnRegistrationFailure` for the format and key algorithm, and the
    /// key verifier's own error when the key is not a point on P-256.
    public func verifyRegistration(_ attestation: WebAuthnAttestation, challengeDigest: Data,
                                   requireUserVerification: Bool) throws -> RegisteredCredential {
        guard let client = try? JSONDecoder().decode(CollectedClientData.self, from: attestation.clientDataJSON) else {
            throw WebAuthnFailure.malformed("clientDataJSON is not JSON with type, challenge and origin")
        }
        // `.wrongType` would say webauthn.get; an assertion offered here is refused all the same.
        guard client.type == "webauthn.create" else { throw WebAuthnFailure.malformed("clientDataJSON.type must be webauthn.create") }
        guard let presented = Data(base64URLEncoded: client.challenge),
              digester.digest(bytes: presented) == challengeDigest else {
            throw WebAuthnFailure.wrongChallenge
        }
        guard origins.contains(client.origin), client.crossOrigin != true else { throw WebAuthnFailure.wrongOrigin(client.origin) }

        let object = try AttestedAuthenticatorData.cbor("attestationObject") { try CBORValue.decodeAll(attestation.attestationObject) }
        guard case .map = object, let format = object["fmt"]?.text, let statementValue = object["attStmt"],
              case .map(let statementPairs) = statementValue, let authData = object["authData"]?.bytes else {
            throw WebAuthnFailure.malformed("attestationObject must be a CBOR map with fmt (text), attStmt (map) and authData (bytes)")
        }
        // The format is judged before the rest, so that an authenticator this server cannot take
        // is told why in the terms the relying party controls (the attestation it requests).
        let statement = try Self.statement(format: format, value: statementValue, members: statementPairs.map(\.key))

        let data = try AttestedAuthenticatorData(parsing: authData)
        let flags = data.head.flags
        guard data.head.rpIDHash == digester.digest(bytes: Data(rpID.utf8)) else { throw WebAuthnFailure.wrongRelyingParty }
        guard flags & AuthenticatorData.userPresent != 0 else { throw WebAuthnFailure.userNotPresent }
        if requireUserVerification, flags & AuthenticatorData.userVerified == 0 { throw WebAuthnFailure.userNotVerified }
        // §7.1 step 16: a credential that cannot be backed up cannot be backed up now.
        if flags & AuthenticatorData.backupEligible == 0, flags & AuthenticatorData.backedUp != 0 {
            throw WebAuthnFailure.malformed("the authenticator data sets BS (backed up) without BE (backup eligible)")
        }

        let key = try Self.es256Key(data.credentialPublicKey)
        // Throws for coordinates that are not a point on the curve: such a key could never verify,
        // and invalid points are the way into invalid-curve attacks.
        _ = try keys.thumbprint(of: key)

        switch statement {
        case .unattested:
            break
        case .packedSelf(let signature):
            // §8.2 step 3: the signature is over authData and the client data's hash, with the
            // credential's own key.
            let signed = [UInt8](authData) + [UInt8](digester.digest(bytes: attestation.clientDataJSON))
            guard keys.verify(derSignature: [UInt8](signature), message: signed, key: key) else {
                throw WebAuthnRegistrationFailure.invalidAttestation(
                    "the packed self-attestation signature does not verify under the credential's key")
            }
        }

        return RegisteredCredential(
            credentialID: data.credentialID, publicKey: key, signCount: data.head.signCount, format: format, aaguid: data.aaguid,
            backupEligible: flags & AuthenticatorData.backupEligible != 0, backedUp: flags & AuthenticatorData.backedUp != 0,
            userVerified: flags & AuthenticatorData.userVerified != 0)
    }

    /// The statement `format` carries, or why it cannot be checked.
    private static func statement(format: String, value: CBORValue, members: [CBORValue]) throws -> Statement {
        switch format {
        case "none":
            // §8.7: the statement is empty; anything in it would be unverified claims.
            guard members.isEmpty else { throw WebAuthnRegistrationFailure.invalidAttestation("format none must have an empty attStmt") }
            return .unattested
        case "packed":
            if value["x5c"] != nil {
                throw WebAuthnRegistrationFailure.attestationNotSupported(
                    "packed attestation with a certificate chain (x5c) is not supported; register with attestation \"none\"")
            }
            guard value["alg"]?.int == -7 else {
                throw WebAuthnRegistrationFailure.invalidAttestation(
                    "packed self-attestation must use alg -7 (ES256), the credential's algorithm")
            }
            guard let signature = value["sig"]?.bytes else {
                throw WebAuthnRegistrationFailure.invalidAttestation("packed attStmt has no sig byte string")
            }
            // ecdaaKeyId (Level 1) and anything else are not part of self-attestation.
            guard members.allSatisfy({ $0 == .text("alg") || $0 == .text("sig") }) else {
                throw WebAuthnRegistrationFailure.invalidAttestation("packed attStmt has members other than alg and sig")
            }
            return .packedSelf(signature: signature)
        default:
            throw WebAuthnRegistrationFailure.unsupportedFormat(
                "attestation format \(format) is not supported; use none or packed self-attestation")
        }
    }

    /// The credential public key as a P-256 key, from its COSE_Key form (RFC 9053 §7.1.1):
    /// kty 2 (EC2), alg -7 (ES256), crv 1 (P-256), and 32-byte x and y.
    private static func es256Key(_ cose: CBORValue) throws -> DevicePublicKey {
        guard case .map = cose else { throw WebAuthnFailure.malformed("the credential public key is not a COSE_Key map") }
        guard cose[1]?.int == 2, cose[3]?.int == -7, cose[-1]?.int == 1 else {
            let kty = cose[1]?.int.map { "\($0)" } ?? "?"
            let alg = cose[3]?.int.map { "\($0)" } ?? "?"
            throw WebAuthnRegistrationFailure.unsupportedFormat(
                "only ES256 (ECDSA on P-256) credentials are accepted, not kty \(kty) alg \(alg); request alg -7 in pubKeyCredParams")
        }
        guard let x = cose[-2]?.bytes, x.count == 32, let y = cose[-3]?.bytes, y.count == 32 else {
            throw WebAuthnFailure.malformed("the P-256 key's x and y must be 32-byte strings")
        }
        return DevicePublicKey(x: x.base64URLEncodedString, y: y.base64URLEncodedString)
    }
}
