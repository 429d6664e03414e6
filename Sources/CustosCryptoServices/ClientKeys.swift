import CustosCore
import CustosCrypto
import Foundation

/// Core's `ClientKeyOperations` over OpenSSL: clients' public P-256 JWKs, ID tokens encrypted
/// to them (JWE), and their `private_key_jwt` assertions verified with them (JWS ES256).
public struct P256ClientKeys: ClientKeyOperations {
    public init() {}

    public func normalizePublicKey(_ jwkJSON: String, field: String) throws -> String {
        guard let jwk = try? JSONDecoder().decode(JWK.self, from: Data(jwkJSON.utf8)) else {
            throw OIDCError.invalid(field, "is not a JSON Web Key")
        }
        guard jwk.d == nil else { throw OIDCError.invalid(field, "holds a private key; send the public key only") }
        guard jwk.kty == "EC", jwk.crv == "P-256", let x = jwk.x, let y = jwk.y else {
            throw OIDCError.invalid(field, "must be an EC P-256 public key (kty EC, crv P-256, x, y)")
        }
        do {
            _ = try P256.PublicKey(x: Base64URL.decode(x), y: Base64URL.decode(y))
        } catch {
            throw OIDCError.invalid(field, "is not a point on P-256")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let normalized = JWK(kty: "EC", crv: "P-256", x: x, y: y, kid: jwk.kid, use: jwk.use, alg: jwk.alg)
        return String(decoding: try encoder.encode(normalized), as: UTF8.self)
    }

    public func encrypt(_ payload: Data, contentType: String, to jwkJSON: String) throws -> String {
        let jwk = try JSONDecoder().decode(JWK.self, from: Data(jwkJSON.utf8))
        guard let x = jwk.x, let y = jwk.y else { throw CryptoError.malformedJWK("no coordinates") }
        return try JWE.encrypt(payload, to: P256.PublicKey(x: Base64URL.decode(x), y: Base64URL.decode(y)), kid: jwk.kid, contentType: contentType)
    }

    public func verify(_ compact: String, with jwkJSON: String) throws -> VerifiedToken {
        let jwk = try JSONDecoder().decode(JWK.self, from: Data(jwkJSON.utf8))
        guard let x = jwk.x, let y = jwk.y else { throw CryptoError.malformedJWK("no coordinates") }
        let verified = try JWS.verify(compact, key: P256.PublicKey(x: Base64URL.decode(x), y: Base64URL.decode(y)))
        return VerifiedToken(type: verified.header.typ, payload: verified.payload)
    }
}
