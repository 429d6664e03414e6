import CustosAPI
import CustosCore
import CustosCrypto
import CustosCryptoServices
import CustosTestSupport
import Foundation
import Testing

/// Our WebAuthn assertion verifier and an independent one (py_webauthn) judge the same byte
/// strings: the valid assertion passes both, and each tampered one fails both, each for the
/// reason its tampering gives.
@Suite struct WebAuthnInteropTests {
    static let rpID = "login.example.com"
    static let origin = "https://login.example.com"
    static let storedCount: UInt32 = 3

    struct Case {
        var name: String
        var rpID = WebAuthnInteropTests.rpID
        var flags: UInt8 = 0x05
        var count: UInt32 = 5
        var type = "webauthn.get"
        var origin = WebAuthnInteropTests.origin
        var challenge: Data? = nil
        var signedByOtherKey = false
        var tamperSignature = false
        /// Why our verifier refuses the case; nil for the one it accepts.
        var ourRefusal: WebAuthnFailure? = nil
        /// Words of py_webauthn's reason for refusing it (an InvalidAuthenticationResponse); nil
        /// for the one it accepts.
        var theirReason: String? = nil
    }

    static let cases: [Case] = [
        Case(name: "valid"),
        Case(name: "bad_signature", tamperSignature: true,
             ourRefusal: .badSignature, theirReason: "Could not verify authentication signature"),
        Case(name: "other_key", signedByOtherKey: true,
             ourRefusal: .badSignature, theirReason: "Could not verify authentication signature"),
        Case(name: "wrong_origin", origin: "https://login.example.com.evil.test",
             ourRefusal: .wrongOrigin("https://login.example.com.evil.test"),
             theirReason: "Unexpected client data origin \"https://login.example.com.evil.test\""),
        Case(name: "wrong_rp_id", rpID: "evil.test", ourRefusal: .wrongRelyingParty, theirReason: "Unexpected RP ID hash"),
        Case(name: "wrong_challenge", challenge: Data(repeating: 7, count: 32),
             ourRefusal: .wrongChallenge, theirReason: "Client data challenge was not expected challenge"),
        Case(name: "wrong_type", type: "webauthn.create",
             ourRefusal: .wrongType, theirReason: "Unexpected client data type \"webauthn.create\""),
        Case(name: "counter_went_back", count: 2, ourRefusal: .counterWentBack(stored: 3, presented: 2),
             theirReason: "Response sign count of 2 was not greater than current count of 3"),
        Case(name: "counter_repeated", count: 3, ourRefusal: .counterWentBack(stored: 3, presented: 3),
             theirReason: "Response sign count of 3 was not greater than current count of 3"),
        Case(name: "user_not_present", flags: 0x04,
             ourRefusal: .userNotPresent, theirReason: "User was not present during authentication"),
        Case(name: "user_not_verified", flags: 0x01,
             ourRefusal: .userNotVerified, theirReason: "User verification is required but user was not verified"),
    ]

    @Test func bothVerifiersAgreeOnEveryCase() throws {
        try #require(OutsideClients.shouldRun, "\(OutsideClients.missingMessage)")
        let key = try P256.PrivateKey.generate()
        let other = try P256.PrivateKey.generate()
        let challenge = Data((0..<32).map { _ in UInt8.random(in: 0...255) })
        let credentialID = "dv_interop"
        var assertions: [(String, WebAuthnAssertion)] = []
        for item in Self.cases {
            let data = AuthenticatorData(rpIDHash: Data(SHA256.hash(Array(item.rpID.utf8))), flags: item.flags, signCount: item.count).encoded
            let clientData = try JSONSerialization.data(withJSONObject: [
                "type": item.type, "challenge": (item.challenge ?? challenge).base64URLEncodedString, "origin": item.origin, "crossOrigin": false,
            ], options: [.sortedKeys, .withoutEscapingSlashes])
            var signature = try (item.signedByOtherKey ? other : key).signDER(Array(data + SHA256.hash(clientData)))
            if item.tamperSignature { signature[signature.count - 1] ^= 0x01 }
            assertions.append((item.name, WebAuthnAssertion(credentialID: credentialID, authenticatorData: data, clientDataJSON: clientData,
                                                            signature: Data(signature))))
        }

        let verifier = WebAuthnVerifier(rpID: Self.rpID, origins: [Self.origin], keys: P256DeviceKeyVerifier(), digester: SHA256SecretDigester())
        let devicePublicKey = DevicePublicKey(x: Base64URL.encode(key.publicKey.x), y: Base64URL.encode(key.publicKey.y))
        // Our verifier's answer to each: the new counter, or why it refused. Any other error fails the test.
        var ours: [String: Result<UInt32, WebAuthnFailure>] = [:]
        for (name, assertion) in assertions {
            do {
                let count = try verifier.verify(assertion, challengeDigest: SHA256.hash(challenge), key: devicePublicKey,
                                                storedSignCount: Self.storedCount, requireUserVerification: true)
                ours[name] = .success(count)
            } catch let failure as WebAuthnFailure {
                ours[name] = .failure(failure)
            }
        }

        let spec: [String: Any] = [
            "x": Base64URL.encode(key.publicKey.x), "y": Base64URL.encode(key.publicKey.y), "rp_id": Self.rpID, "origin": Self.origin,
            "challenge": challenge.base64URLEncodedString, "stored_sign_count": Int(Self.storedCount),
            "cases": assertions.map { name, assertion in
                ["name": name, "credential_id": Data(credentialID.utf8).base64URLEncodedString,
                 "authenticator_data": assertion.authenticatorData.base64URLEncodedString,
                 "client_data_json": assertion.clientDataJSON.base64URLEncodedString, "signature": assertion.signature.base64URLEncodedString]
            },
        ]
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("webauthn-cases-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try JSONSerialization.data(withJSONObject: spec).write(to: file)
        let outside = try OutsideClients.run("webauthn_verify.py", [file.path])
        // Status 3 is the script failing (its traceback in the output), never a verdict.
        try #require(outside.status == 0, "\(outside.output)")
        let theirs = try #require(try JSONSerialization.jsonObject(with: Data(outside.output.utf8)) as? [String: [String: Any]],
                                  "\(outside.output)")

        for item in Self.cases {
            let expected: Result<UInt32, WebAuthnFailure> = if let refusal = item.ourRefusal { .failure(refusal) } else { .success(item.count) }
            #expect(ours[item.name] == expected, "ours on \(item.name)")
            let verdict = try #require(theirs[item.name], "py_webauthn on \(item.name): missing from \(outside.output)")
            if let reason = item.theirReason {
                #expect(verdict["verified"] as? Bool == false && verdict["error"] as? String == "InvalidAuthenticationResponse",
                        "py_webauthn on \(item.name): \(verdict)")
                #expect((verdict["reason"] as? String)?.contains(reason) == true, "py_webauthn on \(item.name): \(verdict)")
            } else {
                #expect(verdict["verified"] as? Bool == true && verdict["new_sign_count"] as? Int == Int(item.count),
                        "py_webauthn on \(item.name): \(verdict)")
            }
        }
    }
}
