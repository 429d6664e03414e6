import Foundation
import Testing
@testable import CustosCrypto

@Suite("JWK")
struct JWKTests {
    static let rfcPublicJSON = #"{"kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}"#

    func decode(_ json: String) throws -> JWK {
        try JSONDecoder().decode(JWK.self, from: Data(json.utf8))
    }

    @Test("RFC 7515 A.3 public JWK imports")
    func importsRFCKey() throws {
        let key = try decode(Self.rfcPublicJSON).p256PublicKey()
        #expect(Base64URL.encode(key.x) == RFC7515Key.x)
        #expect(Base64URL.encode(key.y) == RFC7515Key.y)
    }

    @Test("private JWK imports and matches its public part")
    func importsPrivateKey() throws {
        var jwk = try decode(Self.rfcPublicJSON)
        jwk.d = RFC7515Key.d
        let privateKey = try jwk.p256PrivateKey()
        #expect(privateKey.publicKey == (try jwk.p256PublicKey()))
        let exported = try JWK(privateKey: privateKey, kid: "k1")
        #expect(exported.d == RFC7515Key.d)
        #expect(exported.publicJWK.d == nil)
    }

    @Test("d that does not match x/y is rejected")
    func mismatchedPrivateKey() throws {
        var jwk = JWK(publicKey: try P256.PrivateKey.generate().publicKey)
        jwk.d = RFC7515Key.d
        #expect(throws: CryptoError.invalidPrivateKey("d does not match x and y")) { try jwk.p256PrivateKey() }
        jwk.d = nil
        #expect(throws: CryptoError.malformedJWK("missing d")) { try jwk.p256PrivateKey() }
    }

    /// Expected value computed independently with Python 3 (stdlib only):
    /// base64url(hashlib.sha256(json.dumps({crv,kty,x,y}, separators=(',',':'), sort_keys=True)).digest()).
    @Test("RFC 7638 thumbprint of the RFC 7515 A.3 key")
    func thumbprint() throws {
        let jwk = try decode(Self.rfcPublicJSON)
        #expect(try jwk.thumbprintInput() == #"{"crv":"P-256","kty":"EC","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}"#)
        #expect(try jwk.thumbprint() == "oKIywvGUpTVTyxMQ3bwIIeQUudfr_CkLMjCE19ECD-U")
    }

    @Test("thumbprint ignores optional members and source member order")
    func thumbprintIgnoresExtras() throws {
        let reordered = try decode(#"{"y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0","use":"sig","kid":"abc","alg":"ES256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","crv":"P-256","kty":"EC","d":"jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI"}"#)
        #expect(try reordered.thumbprint() == "oKIywvGUpTVTyxMQ3bwIIeQUudfr_CkLMjCE19ECD-U")
    }

    @Test("off-curve point is rejected")
    func offCurve() throws {
        var y = try Base64URL.decode(RFC7515Key.y)
        y[31] ^= 0x01
        let jwk = JWK(kty: "EC", crv: "P-256", x: RFC7515Key.x, y: Base64URL.encode(y))
        #expect(throws: CryptoError.pointNotOnCurve) { try jwk.p256PublicKey() }
        #expect(throws: CryptoError.pointNotOnCurve) { try jwk.thumbprint() }
    }

    /// A genuine P-384 public key (generated with `openssl ecparam -name secp384r1`).
    @Test("P-384 curve is rejected")
    func p384() throws {
        let jwk = try decode(#"{"kty":"EC","crv":"P-384","x":"_DpxmRSwlxwtfsz6k6wlO2Ona8sixnQFXQdjwVZDVWTR7_5a7xiyHZvJRfPDFTh9","y":"sjJ4RIDALsgYNySI3nFf0mLhUFAAB9990VNktNhaoQKoiJ6-ncN7bsDzw5CnJsDd"}"#)
        #expect(throws: CryptoError.unsupportedCurve("P-384")) { try jwk.p256PublicKey() }
    }

    @Test("other key types, algorithms and sizes are rejected")
    func otherRejections() throws {
        #expect(throws: CryptoError.unsupportedKeyType("RSA")) {
            try decode(#"{"kty":"RSA","n":"AQAB","e":"AQAB"}"#).p256PublicKey()
        }
        var wrongAlg = try decode(Self.rfcPublicJSON)
        wrongAlg.alg = "ES384"
        #expect(throws: CryptoError.unsupportedAlgorithm("ES384")) { try wrongAlg.p256PublicKey() }
        let short = JWK(kty: "EC", crv: "P-256", x: Base64URL.encode([UInt8](repeating: 1, count: 31)), y: RFC7515Key.y)
        #expect(throws: CryptoError.malformedJWK("x must be 32 bytes, got 31")) { try short.p256PublicKey() }
        let missing = JWK(kty: "EC", crv: "P-256", x: RFC7515Key.x)
        #expect(throws: CryptoError.malformedJWK("missing y")) { try missing.p256PublicKey() }
        let padded = JWK(kty: "EC", crv: "P-256", x: RFC7515Key.x + "=", y: RFC7515Key.y)
        #expect(throws: CryptoError.malformedJWK("x is not base64url")) { try padded.p256PublicKey() }
    }

    @Test("export, JSON encode, decode, import round trip")
    func exportRoundTrip() throws {
        let key = try P256.PrivateKey.generate().publicKey
        let jwk = JWK(publicKey: key, kid: "2024-01")
        let json = try JSONEncoder().encode(jwk)
        let text = String(decoding: json, as: UTF8.self)
        #expect(!text.contains("\"d\""))
        let decoded = try JSONDecoder().decode(JWK.self, from: json)
        #expect(decoded == jwk)
        #expect(try decoded.p256PublicKey() == key)
        let set = JWKSet(keys: [jwk])
        let decodedSet = try JSONDecoder().decode(JWKSet.self, from: JSONEncoder().encode(set))
        #expect(decodedSet.key(withID: "2024-01") == jwk)
        #expect(decodedSet.key(withID: "other") == nil)
    }
}
