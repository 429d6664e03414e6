import CustosAPI
import CustosCore
import CustosCrypto
import CustosCryptoServices
import CustosTestSupport
import Foundation
import Testing

/// Passkeys: the WebAuthn registration ceremony (attestation `none` and `packed`
/// self-attestation), judged by our verifier and by py_webauthn on the same bytes, then the
/// passkey signing in through the same verifier as a bound device.
@Suite struct PasskeyTests {
    /// An authenticator written by others (Tests/Clients/webauthn_authenticator.py: fido2's
    /// WebAuthn types, cryptography's keys) registers a passkey over HTTP and signs in with it,
    /// to Custos and through the sign-in page; replays, stale counters, wrong challenges,
    /// origins and rp ids are refused, and so are the WebAuthn Level 3 corner cases it probes
    /// (no UV where the challenge requires it, BS without BE, crossOrigin).
    @Test(arguments: StoreKind.available)
    func anIndependentAuthenticatorRegistersAndSignsInWithAPasskey(kind: StoreKind) async throws {
        try #require(OutsideClients.shouldRun, "\(OutsideClients.missingMessage)")
        let live = try LiveServer.make(kind)
        defer { live.stop() }
        let (client, userID, _) = try await IdentityFlowTests.activatedUser(live)
        let app = try await live.admin(scope: .admin).createOIDCClient(CreateOIDCClientRequest(
            name: "Web", clientType: "public", redirectURIs: [SignInFixture.redirect]))
        let issuer = LiveServer.verdictSigning.issuer
        let level = Assurance.of(.deviceSignature)
        let config: [String: Any] = [
            "server": live.baseURL.absoluteString, "origin": issuer, "rp_id": try #require(URL(string: issuer)?.host),
            "session_token": try #require(client.session.sessionToken), "password": IdentityFlowTests.password, "user_id": userID,
            "client_id": app.clientID, "redirect_uri": SignInFixture.redirect, "expect_acr": level.acr, "expect_amr": level.amr,
        ]
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("webauthn-authenticator-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try JSONSerialization.data(withJSONObject: config).write(to: file)
        let outside = try OutsideClients.run("webauthn_authenticator.py", [file.path])
        #expect(outside.status == 0, "\(outside.output)")
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(outside.output.utf8)) as? [String: Any], "\(outside.output)")
        for check in ["registration", "passkey_login", "oidc_sign_in", "replayed_assertion", "stale_sign_count", "wrong_challenge",
                      "wrong_origin", "wrong_rp_id", "after_refusals"] {
            #expect(seen[check] is [String: Any], "\(check) was not checked: \(outside.output)")
        }
        #expect((seen["failed"] as? [String])?.isEmpty == true, "\(outside.output)")
        let observed = try #require(seen["observations"] as? [String: [String: Any]], "\(outside.output)")
        for probe in ["registration_without_uv", "registration_same_credential_id", "registration_wrong_origin", "registration_wrong_rp_id",
                      "login_without_uv", "login_bs_without_be", "login_cross_origin", "oidc_sign_in_without_uv"] {
            let answer = try #require(observed[probe], "\(probe) was not probed: \(outside.output)")
            let accepted = answer["status_code"] as? Int == 100 || answer["answer"] != nil || answer["device_id"] != nil && answer["code"] == nil
            #expect(!accepted, "\(probe) was accepted: \(answer)")
        }
    }

    /// Just enough CBOR to write attestation objects.
    enum CBOR {
        indirect case int(Int), bytes(Data), text(String), map([(CBOR, CBOR)])

        var encoded: Data {
            func head(_ major: UInt8, _ value: UInt64) -> Data {
                switch value {
                case ..<24: return Data([major << 5 | UInt8(value)])
                case ..<256: return Data([major << 5 | 24, UInt8(value)])
                case ..<65536: return Data([major << 5 | 25, UInt8(value >> 8), UInt8(value & 0xff)])
                default: return Data([major << 5 | 26]) + withUnsafeBytes(of: UInt32(value).bigEndian) { Data($0) }
                }
            }
            switch self {
            case .int(let value): return value >= 0 ? head(0, UInt64(value)) : head(1, UInt64(-1 - value))
            case .bytes(let data): return head(2, UInt64(data.count)) + data
            case .text(let text): return head(3, UInt64(text.utf8.count)) + Data(text.utf8)
            case .map(let pairs): return pairs.reduce(head(5, UInt64(pairs.count))) { $0 + $1.0.encoded + $1.1.encoded }
            }
        }
    }

    struct Registration {
        var attestationObject: Data
        var clientDataJSON: Data
        var credentialID: Data
    }

    static func registration(key: P256.PrivateKey, challenge: String, rpID: String, origin: String, format: String,
                             flags: UInt8 = 0x45) throws -> Registration {
        let credentialID = Data((0..<16).map { _ in UInt8.random(in: 0...255) })
        let coseKey = CBOR.map([(.int(1), .int(2)), (.int(3), .int(-7)), (.int(-1), .int(1)),
                                (.int(-2), .bytes(Data(key.publicKey.x))), (.int(-3), .bytes(Data(key.publicKey.y)))]).encoded
        var authData = Data(SHA256.hash(Array(rpID.utf8)))
        authData.append(flags)
        authData.append(contentsOf: [0, 0, 0, 0])
        authData.append(Data(repeating: 0, count: 16))
        authData.append(contentsOf: [0, UInt8(credentialID.count)])
        authData.append(credentialID + coseKey)
        let clientData = try JSONSerialization.data(withJSONObject: ["type": "webauthn.create", "challenge": challenge, "origin": origin],
                                                    options: [.sortedKeys, .withoutEscapingSlashes])
        var statement = CBOR.map([])
        if format == "packed" {
            let signature = try key.signDER(Array(authData + SHA256.hash(clientData)))
            statement = .map([(.text("alg"), .int(-7)), (.text("sig"), .bytes(Data(signature)))])
        }
        let object = CBOR.map([(.text("fmt"), .text(format)), (.text("attStmt"), statement), (.text("authData"), .bytes(authData))]).encoded
        return Registration(attestationObject: object, clientDataJSON: clientData, credentialID: credentialID)
    }

    @Test func ourVerifierAndPyWebAuthnAgreeOnRegistrations() throws {
        try #require(OutsideClients.shouldRun, "\(OutsideClients.missingMessage)")
        let rpID = "login.example.com", origin = "https://login.example.com"
        let challenge = Data((0..<32).map { _ in UInt8.random(in: 0...255) })
        let text = challenge.base64URLEncodedString
        let cases: [(String, Registration, Bool)] = [
            ("none", try Self.registration(key: .generate(), challenge: text, rpID: rpID, origin: origin, format: "none"), true),
            ("packed", try Self.registration(key: .generate(), challenge: text, rpID: rpID, origin: origin, format: "packed"), true),
            ("wrong_rp_id", try Self.registration(key: .generate(), challenge: text, rpID: "evil.test", origin: origin, format: "none"), false),
            ("wrong_origin", try Self.registration(key: .generate(), challenge: text, rpID: rpID, origin: "https://evil.test", format: "none"), false),
            ("no_user_verification", try Self.registration(key: .generate(), challenge: text, rpID: rpID, origin: origin, format: "none",
                                                           flags: 0x41), false),
            ("other_challenge", try Self.registration(key: .generate(), challenge: Data(repeating: 1, count: 32).base64URLEncodedString,
                                                      rpID: rpID, origin: origin, format: "packed"), false),
        ]
        // Why each refused case is refused: our verifier's failure, and words of py_webauthn's
        // reason (an InvalidRegistrationResponse).
        let refusals: [String: (ours: WebAuthnFailure, theirs: String)] = [
            "wrong_rp_id": (.wrongRelyingParty, "Unexpected RP ID hash"),
            "wrong_origin": (.wrongOrigin("https://evil.test"), "Unexpected client data origin \"https://evil.test\""),
            "no_user_verification": (.userNotVerified, "User verification is required but user was not verified"),
            "other_challenge": (.wrongChallenge, "Client data challenge was not expected challenge"),
        ]
        let verifier = WebAuthnVerifier(rpID: rpID, origins: [origin], keys: P256DeviceKeyVerifier(), digester: SHA256SecretDigester())
        let spec: [String: Any] = [
            "rp_id": rpID, "origin": origin, "challenge": text,
            "cases": cases.map { name, registration, _ in
                ["name": name, "credential_id": registration.credentialID.base64URLEncodedString,
                 "attestation_object": registration.attestationObject.base64URLEncodedString,
                 "client_data_json": registration.clientDataJSON.base64URLEncodedString]
            },
        ]
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("webauthn-registrations-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try JSONSerialization.data(withJSONObject: spec).write(to: file)
        let outside = try OutsideClients.run("webauthn_register.py", [file.path])
        // Status 3 is the script failing (its traceback in the output), never a verdict.
        try #require(outside.status == 0, "\(outside.output)")
        let theirs = try #require(try JSONSerialization.jsonObject(with: Data(outside.output.utf8)) as? [String: [String: Any]],
                                  "\(outside.output)")
        for (name, registration, expected) in cases {
            #expect(refusals.keys.contains(name) == !expected, "\(name) is either accepted or has its reasons for refusal")
            let attestation = WebAuthnAttestation(attestationObject: registration.attestationObject, clientDataJSON: registration.clientDataJSON)
            do {
                let ours = try verifier.verifyRegistration(attestation, challengeDigest: SHA256.hash(challenge), requireUserVerification: true)
                #expect(expected, "ours accepted \(name)")
                #expect(ours.credentialID == registration.credentialID && ours.format == name, "ours on \(name): \(ours)")
            } catch {
                #expect(!expected && error as? WebAuthnFailure == refusals[name]?.ours, "ours on \(name): \(error)")
            }
            let verdict = try #require(theirs[name], "py_webauthn on \(name): missing from \(outside.output)")
            if let reason = refusals[name]?.theirs {
                #expect(verdict["verified"] as? Bool == false && verdict["error"] as? String == "InvalidRegistrationResponse",
                        "py_webauthn on \(name): \(verdict)")
                #expect((verdict["reason"] as? String)?.contains(reason) == true, "py_webauthn on \(name): \(verdict)")
            } else {
                #expect(verdict["verified"] as? Bool == true && verdict["fmt"] as? String == name, "py_webauthn on \(name): \(verdict)")
            }
        }
    }

    @Test(arguments: StoreKind.available)
    func aRegisteredPasskeySignsInLikeABoundDevice(kind: StoreKind) async throws {
        let live = try LiveServer.make(kind)
        defer { live.stop() }
        let (client, userID, _) = try await IdentityFlowTests.activatedUser(live)
        let bearer = try #require(client.session.sessionToken)
        let api = RawAPI(base: live.baseURL)
        // A stolen session alone cannot add a passkey: the password is asked again, and a wrong
        // one uses an attempt as any step-up does.
        let (wrong, wrongError) = try await api.postRaw("/v1/passkeys/registration", PasskeyRegistrationStart(password: "not the password"),
                                                        bearer: bearer)
        #expect(wrong == 401 && wrongError.error.code == "credentials_rejected" && wrongError.error.message.contains("4 attempts left"))
        let options: PasskeyRegistrationOptions = try await api.post("/v1/passkeys/registration",
                                                                     PasskeyRegistrationStart(password: IdentityFlowTests.password), bearer: bearer)
        #expect(options.algorithms == [-7] && options.userVerification == "required" && options.userID == userID)
        let key = try P256.PrivateKey.generate()
        let made = try Self.registration(key: key, challenge: options.challenge, rpID: options.rpID, origin: options.origin, format: "packed")
        let body = PasskeyRegistrationRequest(attestationObject: made.attestationObject.base64URLEncodedString,
                                              clientDataJSON: made.clientDataJSON.base64URLEncodedString, name: "security key")
        let device: DeviceInfo = try await api.post("/v1/passkeys/registration/\(options.registrationID)", body, bearer: bearer)
        #expect(device.deviceID == "pk_" + made.credentialID.base64URLEncodedString && device.name == "security key")
        // The registration is single use, and needs the session of the user it was made for.
        let (status, _) = try await api.postRaw("/v1/passkeys/registration/\(options.registrationID)", body, bearer: bearer)
        #expect(status == 410)
        let (anonymous, _) = try await api.postRaw("/v1/passkeys/registration", PasskeyRegistrationStart(password: IdentityFlowTests.password))
        #expect(anonymous == 401)

        // The passkey signs in through the device sign-in, with the same verifier.
        let appClient = try await live.admin(scope: .admin).createOIDCClient(CreateOIDCClientRequest(
            name: "Web", clientType: "public", redirectURIs: [SignInFixture.redirect]))
        let passkey = BoundSignInAttackTests.RawDevice(api: api, userID: userID, deviceID: device.deviceID, key: key, clientID: appClient.clientID,
                                                             sessionToken: "")
        let challenge = try await passkey.begin()
        let code: AuthorizationCodeResponse = try await api.post("/v1/oidc/device-sign-in/\(challenge.authorizationID)/assertion",
                                                                 try passkey.assertion(challenge))
        #expect(code.code.hasPrefix("ac_"))
    }
}
