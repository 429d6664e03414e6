import CustosAPI
import CustosCore
import CustosCrypto
import CustosTestSupport
import Foundation
import Testing

/// Our WebAuthn assertion verifier and an independent one (py_webauthn) judge the same byte
/// strings: the valid assertion passes both, and each tampered one fails both.
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
    }

    static let cases: [Case] = [
        Case(name: "valid"),
        Case(name: "bad_signature", tamperSignature: true),
        Case(name: "other_key", signedByOtherKey: true),
        Case(name: "wrong_origin", origin: "https://login.example.com.evil.test"),
        Case(name: "wrong_rp_id", rpID: "evil.test"),
        Case(name: "wrong_challenge", challenge: Data(repeating: 7, count: 32)),
        Case(name: "wrong_type", type: "webauthn.create"),
        Case(name: "counter_went_back", count: 2),
        Case(name: "counter_repeated", count: 3),
        Case(name: "user_not_present", flags: 0x04),
        Case(name: "user_not_verified", flags: 0x01),
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
        var ours: [String: Bool] = [:]
        for (name, assertion) in assertions {
            ours[name] = (try? verifier.verify(assertion, challengeDigest: SHA256.hash(challenge), key: devicePublicKey,
                                               storedSignCount: Self.storedCount, requireUserVerification: true)) != nil
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
        #expect(outside.status == 0, "\(outside.output)")
        let theirs = try #require(try JSONSerialization.jsonObject(with: Data(outside.output.utf8)) as? [String: String], "\(outside.output)")

        for item in Self.cases {
            let expected = item.name == "valid"
            #expect(ours[item.name] == expected, "ours on \(item.name)")
            #expect((theirs[item.name] == "accepted") == expected, "py_webauthn on \(item.name): \(theirs[item.name] ?? "missing")")
        }
    }
}
