import Foundation
import Testing
@testable import CustosCrypto

@Suite("JWS ES256")
struct JWSTests {
    /// RFC 7515 appendix A.3.1, the JWS Compact Serialization (line breaks removed).
    static let rfcCompact = "eyJhbGciOiJFUzI1NiJ9"
        + ".eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
        + ".DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"

    static func rfcPublicKey() throws -> P256.PublicKey {
        try JWK(kty: "EC", crv: "P-256", x: RFC7515Key.x, y: RFC7515Key.y).p256PublicKey()
    }

    @Test("RFC 7515 A.3 example verifies")
    func rfcVector() throws {
        let verified = try JWS.verify(Self.rfcCompact, key: Self.rfcPublicKey())
        #expect(verified.header.alg == "ES256")
        #expect(verified.headerJSON == Data(#"{"alg":"ES256"}"#.utf8))
        #expect(verified.payload == Data("{\"iss\":\"joe\",\r\n \"exp\":1300819380,\r\n \"http://example.com/is_root\":true}".utf8))
    }

    @Test("tampered RFC example fails")
    func rfcTampered() throws {
        let key = try Self.rfcPublicKey()
        let badSignature = String(Self.rfcCompact.dropLast()) + "A"
        #expect(throws: CryptoError.signatureVerificationFailed) { try JWS.verify(badSignature, key: key) }

        let parts = Self.rfcCompact.split(separator: ".").map(String.init)
        let otherPayload = Base64URL.encode(Data(#"{"iss":"mallory"}"#.utf8))
        let badPayload = [parts[0], otherPayload, parts[2]].joined(separator: ".")
        #expect(throws: CryptoError.signatureVerificationFailed) { try JWS.verify(badPayload, key: key) }

        let otherKey = try P256.PrivateKey.generate().publicKey
        #expect(throws: CryptoError.signatureVerificationFailed) { try JWS.verify(Self.rfcCompact, key: otherKey) }
    }

    @Test("sign then verify, with kid and typ in the header")
    func roundTrip() throws {
        let key = try P256.PrivateKey(rawRepresentation: Base64URL.decode(RFC7515Key.d))
        let payload = Data(#"{"sub":"alice"}"#.utf8)
        let compact = try JWS.sign(payload: payload, key: key, kid: "k1", typ: "JWT")
        let headerSegment = String(compact.split(separator: ".")[0])
        #expect(try Base64URL.decodeData(headerSegment) == Data(#"{"alg":"ES256","kid":"k1","typ":"JWT"}"#.utf8))
        let verified = try JWS.verify(compact, key: Self.rfcPublicKey())
        #expect(verified.payload == payload)
        #expect(verified.header == JWS.Header(alg: "ES256", typ: "JWT", kid: "k1"))
        #expect(try JWS.unverifiedHeader(compact).kid == "k1")
    }

    @Test("empty payload is allowed")
    func emptyPayload() throws {
        let key = try P256.PrivateKey.generate()
        let compact = try JWS.sign(payload: Data(), key: key)
        #expect(try JWS.verify(compact, key: key.publicKey).payload.isEmpty)
    }

    @Test("algorithms other than ES256 are rejected", arguments: ["none", "HS256", "RS256", "ES384", "es256"])
    func otherAlgorithms(_ alg: String) throws {
        let key = try P256.PrivateKey.generate()
        let valid = try JWS.sign(payload: Data("x".utf8), key: key)
        let parts = valid.split(separator: ".").map(String.init)
        let header = Base64URL.encode(Data(#"{"alg":"\#(alg)"}"#.utf8))
        let forged = [header, parts[1], parts[2]].joined(separator: ".")
        #expect(throws: CryptoError.unsupportedAlgorithm(alg)) { try JWS.verify(forged, key: key.publicKey) }
        let unsigned = [header, parts[1], ""].joined(separator: ".")
        #expect(throws: CryptoError.self) { try JWS.verify(unsigned, key: key.publicKey) }
    }

    @Test("crit header is rejected")
    func crit() throws {
        let key = try P256.PrivateKey.generate()
        let header = Base64URL.encode(Data(#"{"alg":"ES256","crit":["b64"],"b64":false}"#.utf8))
        let input = header + "." + Base64URL.encode(Data("x".utf8))
        let compact = input + "." + Base64URL.encode(try key.sign(Array(input.utf8)))
        #expect(throws: CryptoError.malformedJWS("unsupported crit header")) { try JWS.verify(compact, key: key.publicKey) }
    }

    @Test("malformed compact serializations are rejected")
    func malformed() throws {
        let key = try Self.rfcPublicKey()
        let parts = Self.rfcCompact.split(separator: ".").map(String.init)
        let cases = [
            "",
            "..",
            parts[0] + "." + parts[1],
            Self.rfcCompact + ".extra",
            "." + parts[1] + "." + parts[2],
            parts[0] + "=." + parts[1] + "." + parts[2],
            parts[0] + "." + parts[1] + "." + parts[2] + "==",
            parts[0] + "." + parts[1] + "!" + "." + parts[2],
            Base64URL.encode(Data("not json".utf8)) + "." + parts[1] + "." + parts[2],
            Base64URL.encode(Data(#"{"alg":1}"#.utf8)) + "." + parts[1] + "." + parts[2],
            parts[0] + "." + parts[1] + "." + Base64URL.encode([UInt8](repeating: 1, count: 63)),
        ]
        for compact in cases {
            #expect(throws: CryptoError.self) { try JWS.verify(compact, key: key) }
        }
    }
}
