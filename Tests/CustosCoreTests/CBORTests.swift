import CustosAPI
import CustosCore
import CustosFakes
import Foundation
import Testing

/// The CBOR decoder on RFC 8949's own examples, and on the inputs a hostile registration would
/// send: each must throw, never crash, allocate what a length claims, or recurse without bound.
@Suite struct CBORTests {
    /// Bytes from hex; spaces are ignored, for readability.
    static func hex(_ text: String) -> Data {
        let digits = Array(text.filter { !$0.isWhitespace })
        return Data(stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! })
    }

    static func decoded(_ text: String) throws -> CBORValue { try CBORValue.decodeAll(hex(text)) }

    static func pair(_ key: CBORValue, _ value: CBORValue) -> CBORPair { CBORPair(key: key, value: value) }

    /// A minimal CBOR encoder (shortest form, definite lengths), for building test inputs only.
    static func encode(_ value: CBORValue) -> [UInt8] {
        func head(_ major: UInt8, _ argument: UInt64) -> [UInt8] {
            if argument < 24 { return [major << 5 | UInt8(argument)] }
            let (info, size): (UInt8, Int) =
                argument <= 0xFF ? (24, 1) : argument <= 0xFFFF ? (25, 2) : argument <= 0xFFFF_FFFF ? (26, 4) : (27, 8)
            return [major << 5 | info] + (0..<size).reversed().map { UInt8(truncatingIfNeeded: argument >> (8 * $0)) }
        }
        switch value {
        case .unsigned(let number): return head(0, number)
        case .negative(let number): return head(1, UInt64(-1 - number))
        case .bytes(let data): return head(2, UInt64(data.count)) + [UInt8](data)
        case .text(let string): return head(3, UInt64(string.utf8.count)) + Array(string.utf8)
        case .array(let items): return head(4, UInt64(items.count)) + items.flatMap { encode($0) }
        case .map(let pairs): return head(5, UInt64(pairs.count)) + pairs.flatMap { encode($0.key) + encode($0.value) }
        case .bool(let flag): return [flag ? 0xF5 : 0xF4]
        case .null: return [0xF6]
        }
    }

    @Test func scalarsFromRFC8949AppendixA() throws {
        let examples: [(String, CBORValue)] = [
            ("00", .unsigned(0)), ("17", .unsigned(23)), ("1818", .unsigned(24)), ("18ff", .unsigned(255)),
            ("1903e8", .unsigned(1000)), ("1a000f4240", .unsigned(1_000_000)), ("1bffffffffffffffff", .unsigned(.max)),
            ("20", .negative(-1)), ("3863", .negative(-100)), ("3903e7", .negative(-1000)), ("3b7fffffffffffffff", .negative(.min)),
            ("f4", .bool(false)), ("f5", .bool(true)), ("f6", .null),
        ]
        for (input, value) in examples {
            #expect(try Self.decoded(input) == value, "\(input)")
            #expect(Self.encode(value) == [UInt8](Self.hex(input)), "\(input)")
        }
    }

    @Test func stringsAndContainersFromRFC8949AppendixA() throws {
        let examples: [(String, CBORValue)] = [
            ("40", .bytes(Data())), ("4401020304", .bytes(Data([1, 2, 3, 4]))),
            ("60", .text("")), ("6449455446", .text("IETF")), ("62c3bc", .text("\u{00FC}")), ("63e6b0b4", .text("\u{6C34}")),
            ("80", .array([])), ("a0", .map([])),
            ("820203", .array([.unsigned(2), .unsigned(3)])),
            ("8301820203820405", .array([.unsigned(1), .array([.unsigned(2), .unsigned(3)]), .array([.unsigned(4), .unsigned(5)])])),
            ("a201020304", .map([Self.pair(.unsigned(1), .unsigned(2)), Self.pair(.unsigned(3), .unsigned(4))])),
            ("a26161016162820203", .map([Self.pair(.text("a"), .unsigned(1)),
                                         Self.pair(.text("b"), .array([.unsigned(2), .unsigned(3)]))])),
        ]
        for (input, value) in examples {
            #expect(try Self.decoded(input) == value, "\(input)")
            #expect(Self.encode(value) == [UInt8](Self.hex(input)), "\(input)")
        }
    }

    @Test func decodeReportsTheLengthOfTheFirstItem() throws {
        let (value, length) = try CBORValue.decode(Self.hex("1a000f4240 ff ff"))
        #expect(value == .unsigned(1_000_000))
        #expect(length == 5)
        // Non-shortest integers mean one value only, and are taken.
        #expect(try Self.decoded("1900 05") == .unsigned(5))
    }

    @Test func accessorsReadMapsAndScalars() throws {
        let object = try Self.decoded("a26161016162820203")
        #expect(object["a"]?.int == 1)
        #expect(object["b"] == .array([.unsigned(2), .unsigned(3)]))
        #expect(object["c"] == nil)
        #expect(object[1] == nil)
        let cose = try Self.decoded("a3 01 02 03 26 20 01")   // {1: 2, 3: -7, -1: 1}
        #expect(cose[1]?.int == 2)
        #expect(cose[3]?.int == -7)
        #expect(cose[-1]?.int == 1)
        #expect(CBORValue.unsigned(.max).int == nil)
        #expect(CBORValue.text("IETF").text == "IETF")
        #expect(CBORValue.text("IETF").bytes == nil)
        #expect(CBORValue.bytes(Data([1])).bytes == Data([1]))
        #expect(CBORValue.array([]).int == nil)
        #expect(CBORValue.array([])["a"] == nil)
    }

    @Test(arguments: [
        "",                                                  // nothing
        "1a0001", "4401", "6449", "8201", "a201",            // truncated
        "5bffffffffffffffff", "5b8000000000000000",          // byte string of 2^64 - 1 and 2^63 bytes
        "7bffffffffffffffff", "9bffffffffffffffff", "bbffffffffffffffff",   // text, array, map lengths
        "9a7fffffff00",                                      // an array of 2^31 - 1 items in 6 bytes
        "5f4101ff", "7f6161ff", "9f01ff", "bfff", "ff",     // indefinite lengths and a stray break
        "c074323031332d30332d32315432303a30343a30305a", "c11a514b67b0", "d8184100",   // tags
        "f93c00", "fa47c35000", "fb3ff199999999999a",       // floats
        "f7", "f0", "f8ff", "1c", "3e",                      // undefined, simple values, reserved
        "3bffffffffffffffff", "3b8000000000000000",          // below Int64.min
        "61ff", "62c328", "62c0af", "63eda080",              // invalid UTF-8: stray, continuation, overlong, surrogate
        "0000", "a0 00",                                     // trailing bytes
        "a2 01 02 01 03",                                    // a repeated key
    ])
    func hostileInputIsRefused(_ input: String) {
        #expect(throws: CBORError.self, "\(input)") { try CBORValue.decodeAll(Self.hex(input)) }
    }

    @Test func nestingIsLimited() throws {
        #expect(try CBORValue.decodeAll(Data(repeating: 0x81, count: 16) + [0x00]) != .null)
        #expect(throws: CBORError.self) { try CBORValue.decodeAll(Data(repeating: 0x81, count: 17) + [0x00]) }
        #expect(throws: CBORError.self) { try CBORValue.decodeAll(Data(repeating: 0x81, count: 100) + [0x00]) }
        // Refused before recursing: no stack is spent on the depth an attacker claims.
        #expect(throws: CBORError.self) { try CBORValue.decodeAll(Data(repeating: 0x81, count: 100_000)) }
        #expect(throws: CBORError.self) { try CBORValue.decode(Self.hex("8180"), maximumDepth: 1) }
        #expect(try CBORValue.decode(Self.hex("80"), maximumDepth: 1).length == 1)
    }
}

/// The registration ceremony's checks, over fake crypto: the attestation object is built with
/// the test encoder above, the "signatures" are `FakeDeviceKeys.sign`.
@Suite struct WebAuthnRegistrationTests {
    /// 25 characters: its fake digest ("digest:" + the id) is 32 bytes, an rpIdHash's size.
    static let rpID = "login.custos.example.test"
    static let origin = "https://login.custos.example.test"
    static let challenge = Data("registration-challenge".utf8)
    static let challengeDigest = FakeDigester().digest(bytes: challenge)
    static let x = Data(repeating: 0x11, count: 32)
    static let y = Data(repeating: 0x22, count: 32)
    static let key = DevicePublicKey(x: x.base64URLEncodedString, y: y.base64URLEncodedString)
    static let credentialID = Data((0..<16).map { UInt8($0) })
    static let verifier = WebAuthnVerifier(rpID: rpID, origins: [origin], keys: FakeDeviceKeys(), digester: FakeDigester())

    static func int(_ value: Int64) -> CBORValue { value >= 0 ? .unsigned(UInt64(value)) : .negative(value) }

    static func coseKey(kty: Int64 = 2, alg: Int64 = -7) -> CBORValue {
        .map([CBORTests.pair(int(1), int(kty)), CBORTests.pair(int(3), int(alg)), CBORTests.pair(int(-1), int(1)),
              CBORTests.pair(int(-2), .bytes(x)), CBORTests.pair(int(-3), .bytes(y))])
    }

    /// UP, UV and AT set, counter 0, a zero AAGUID.
    static func authData(flags: UInt8 = 0x45, key: CBORValue) -> Data {
        var data = FakeDigester().digest(bytes: Data(rpID.utf8))
        data.append(flags)
        data.append(contentsOf: [0, 0, 0, 0] as [UInt8])
        data.append(Data(count: 16))
        data.append(contentsOf: [0, UInt8(credentialID.count)] as [UInt8])
        data.append(credentialID)
        data.append(contentsOf: CBORTests.encode(key))
        return data
    }

    static func clientData(type: String = "webauthn.create") -> Data {
        Data(#"{"type":"\#(type)","challenge":"\#(challenge.base64URLEncodedString)","origin":"\#(origin)"}"#.utf8)
    }

    static func attestation(_ format: String, statement: [CBORPair], authData: Data, clientData: Data) -> WebAuthnAttestation {
        let object = CBORValue.map([CBORTests.pair(.text("fmt"), .text(format)), CBORTests.pair(.text("attStmt"), .map(statement)),
                                    CBORTests.pair(.text("authData"), .bytes(authData))])
        return WebAuthnAttestation(attestationObject: Data(CBORTests.encode(object)), clientDataJSON: clientData)
    }

    static func register(_ attestation: WebAuthnAttestation) throws -> RegisteredCredential {
        try verifier.verifyRegistration(attestation, challengeDigest: challengeDigest, requireUserVerification: true)
    }

    @Test func noneAndPackedSelfAttestationRegister() throws {
        try #require(FakeDigester().digest(bytes: Data(Self.rpID.utf8)).count == 32)
        let data = Self.authData(key: Self.coseKey())
        let none = try Self.register(Self.attestation("none", statement: [], authData: data, clientData: Self.clientData()))
        #expect(none == RegisteredCredential(credentialID: Self.credentialID, publicKey: Self.key, signCount: 0, format: "none",
                                             aaguid: Data(count: 16), backupEligible: false, backedUp: false, userVerified: true))

        let signed = [UInt8](data) + [UInt8](FakeDigester().digest(bytes: Self.clientData()))
        let signature = Data(FakeDeviceKeys.sign(signed, key: Self.key))
        let packed = try Self.register(Self.attestation("packed", statement: [CBORTests.pair(.text("alg"), Self.int(-7)),
                                                                               CBORTests.pair(.text("sig"), .bytes(signature))],
                                                        authData: data, clientData: Self.clientData()))
        #expect(packed.format == "packed")
        #expect(packed.publicKey == Self.key)
    }

    @Test func unsupportedFormatsKeysAndForgeriesAreRefused() throws {
        let data = Self.authData(key: Self.coseKey())
        let client = Self.clientData()
        #expect(throws: WebAuthnRegistrationFailure.unsupportedFormat(
            "attestation format fido-u2f is not supported; use none or packed self-attestation")) {
            try Self.register(Self.attestation("fido-u2f", statement: [], authData: data, clientData: client))
        }
        let chain = [CBORTests.pair(.text("alg"), Self.int(-7)), CBORTests.pair(.text("sig"), .bytes(Data([1]))),
                     CBORTests.pair(.text("x5c"), .array([.bytes(Data([2]))]))]
        #expect(throws: WebAuthnRegistrationFailure.attestationNotSupported(
            "packed attestation with a certificate chain (x5c) is not supported; register with attestation \"none\"")) {
            try Self.register(Self.attestation("packed", statement: chain, authData: data, clientData: client))
        }
        let forged = [CBORTests.pair(.text("alg"), Self.int(-7)), CBORTests.pair(.text("sig"), .bytes(Data(count: 64)))]
        #expect(throws: WebAuthnRegistrationFailure.self) {
            try Self.register(Self.attestation("packed", statement: forged, authData: data, clientData: client))
        }
        // An RSA (RS256) credential.
        let rsa = Self.authData(key: Self.coseKey(kty: 3, alg: -257))
        #expect(throws: WebAuthnRegistrationFailure.self) {
            try Self.register(Self.attestation("none", statement: [], authData: rsa, clientData: client))
        }
        #expect(throws: WebAuthnFailure.malformed("clientDataJSON.type must be webauthn.create")) {
            try Self.register(Self.attestation("none", statement: [], authData: data, clientData: Self.clientData(type: "webauthn.get")))
        }
        // Bytes after the credential key with no extensions flag (ED).
        #expect(throws: WebAuthnFailure.self) {
            try Self.register(Self.attestation("none", statement: [], authData: data + [0xA0], clientData: client))
        }
        // UV required but not set.
        #expect(throws: WebAuthnFailure.userNotVerified) {
            try Self.register(Self.attestation("none", statement: [], authData: Self.authData(flags: 0x41, key: Self.coseKey()),
                                               clientData: client))
        }
    }
}
