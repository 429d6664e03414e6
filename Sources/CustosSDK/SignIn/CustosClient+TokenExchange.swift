import CustosAPI
import Foundation

extension CustosClient {
    /// `exchangeToken`: posts the code and its PKCE verifier to the token endpoint (as a public
    /// client) and returns the ID token, the access token (`Bearer`), its lifetime and, with
    /// `offline_access`, a refresh token. The ID token is validated — ES256 signature under a
    /// key of the server's JWKS, `iss`, `aud`, `exp`, `nonce` — unless it was encrypted for the
    /// app's server, which validates it after decrypting. An empty `nonce` is not checked.
    public func exchangeToken(_ response: AuthorizationResponse) async throws -> OIDCTokens {
        var fields = ["grant_type": "authorization_code", "code": response.code, "redirect_uri": response.redirectURI,
                      "client_id": response.clientID]
        fields["code_verifier"] = response.codeVerifier
        let tokens = try await transport.form(Endpoints.token, fields: fields)
        guard tokens.tokenType.lowercased() == "bearer" else { throw CustosError.invalidResponse("the token type is \(tokens.tokenType), not Bearer") }
        if !response.encrypted {
            try IDTokenValidator(issuer: response.issuer, clientID: response.clientID, nonce: response.nonce.isEmpty ? nil : response.nonce,
                                 keySet: try await publicKeySet()).validate(tokens.idToken, now: Date())
        }
        return tokens
    }

    /// The server's signing keys (`/.well-known/jwks.json`), as JSON.
    public func publicKeySet() async throws -> Data {
        try await transport.bytes(Endpoints.jwks, bearer: nil).data
    }

    /// `exchangeToken` for callers that use completion handlers.
    public func exchangeToken(_ response: AuthorizationResponse, completion: @escaping @Sendable (OIDCTokens?, CustosError?) -> Void) {
        Task {
            do { completion(try await exchangeToken(response), nil) } catch { completion(nil, CustosError(error)) }
        }
    }
}

/// Checks an ID token as OpenID Connect Core §3.1.3.7 asks of a client: what an app's server
/// does with the token the app sends it.
public struct IDTokenValidator: Sendable {
    public let issuer: String
    public let clientID: String
    /// The nonce of the request; nil: not checked (a refreshed ID token carries none).
    public let nonce: String?
    /// The server's JWK set (JSON, `/.well-known/jwks.json`).
    public let keySet: Data
    /// Allowed clock difference.
    public var leeway: TimeInterval = 60

    public init(issuer: String, clientID: String, nonce: String?, keySet: Data) {
        self.issuer = issuer
        self.clientID = clientID
        self.nonce = nonce
        self.keySet = keySet
    }

    /// The token's claims once every check passed; throws `invalid_response` naming the first
    /// that failed.
    @discardableResult
    public func validate(_ token: String, now: Date) throws -> [String: Any] {
        func refuse(_ reason: String) -> CustosError { .invalidResponse("the ID token is refused: \(reason)") }
        let segments = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard segments.count == 3, let headerData = Data(base64URLEncoded: segments[0]), let payload = Data(base64URLEncoded: segments[1]),
              let signature = Data(base64URLEncoded: segments[2]),
              let header = try? JSONSerialization.jsonObject(with: headerData) as? [String: Any],
              let claims = try? JSONSerialization.jsonObject(with: payload) as? [String: Any] else { throw refuse("not a compact JWS") }
        guard header["alg"] as? String == "ES256" else { throw refuse("alg must be ES256") }
        guard let kid = header["kid"] as? String,
              let set = try? JSONSerialization.jsonObject(with: keySet) as? [String: Any], let keys = set["keys"] as? [[String: Any]],
              let key = keys.first(where: { $0["kid"] as? String == kid }),
              let x = (key["x"] as? String).flatMap(Data.init(base64URLEncoded:)), let y = (key["y"] as? String).flatMap(Data.init(base64URLEncoded:)) else {
            throw refuse("its key is not in the server's JWKS")
        }
        guard SDKCrypto.verifyES256(signature: signature, message: Data((segments[0] + "." + segments[1]).utf8), x: x, y: y) else {
            throw refuse("bad signature")
        }
        guard claims["iss"] as? String == issuer else { throw refuse("iss is not \(issuer)") }
        let audience = (claims["aud"] as? [String]) ?? [(claims["aud"] as? String)].compactMap { $0 }
        guard audience.contains(clientID) else { throw refuse("aud is not \(clientID)") }
        guard let exp = (claims["exp"] as? NSNumber)?.doubleValue, exp + leeway > now.timeIntervalSince1970 else { throw refuse("expired") }
        if let nonce { guard claims["nonce"] as? String == nonce else { throw refuse("nonce differs") } }
        return claims
    }
}
