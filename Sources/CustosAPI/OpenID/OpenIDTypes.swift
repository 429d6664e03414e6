import Foundation

/// An `application/x-www-form-urlencoded` request body (the OAuth endpoints'), as name → value;
/// a name given twice is refused (RFC 6749 §3.1).
public struct FormBody: Sendable, Equatable, Decodable {
    public var fields: [String: String]

    public init(fields: [String: String]) {
        self.fields = fields
    }

    public subscript(name: String) -> String? { fields[name] }

    /// Parses the body; nil when it is not form-encoded text, repeats a name, or holds a NUL
    /// (no OAuth parameter has one, and PostgreSQL's text cannot store one: it would surface as
    /// a database error, not as the client's mistake it is).
    public init?(parsing body: Data) {
        guard let text = String(data: body, encoding: .utf8) else { return nil }
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (part: Substring) in String(part).replacingOccurrences(of: "+", with: " ").removingPercentEncoding }
            guard let name = decode(parts[0]), let value = parts.count == 2 ? decode(parts[1]) : "", fields[name] == nil,
                  !name.unicodeScalars.contains("\0"), !value.unicodeScalars.contains("\0") else { return nil }
            fields[name] = value
        }
        self.fields = fields
    }

    /// The form's encoding, for clients.
    public var encoded: Data {
        // ASCII only: `alphanumerics` holds every script's letters, which must go as UTF-8 escapes.
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        let pairs = fields.sorted { $0.key < $1.key }.map { name, value in
            (name.addingPercentEncoding(withAllowedCharacters: allowed) ?? name) + "="
                + (value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value)
        }
        return Data(pairs.joined(separator: "&").utf8)
    }

    public init(from decoder: any Decoder) throws {
        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "a form body is parsed, not decoded as JSON"))
    }
}

/// The answer of the CIBA backchannel authentication endpoint.
public struct BackchannelAuthenticationResponse: Codable, Equatable, Sendable {
    public var authReqID: String
    public var expiresIn: Int
    /// Seconds the client waits between polls of the token endpoint.
    public var interval: Int

    enum CodingKeys: String, CodingKey {
        case interval
        case authReqID = "auth_req_id"
        case expiresIn = "expires_in"
    }

    public init(authReqID: String, expiresIn: Int, interval: Int) {
        self.authReqID = authReqID
        self.expiresIn = expiresIn
        self.interval = interval
    }
}

/// The token endpoint's answer.
public struct TokenResponse: Codable, Equatable, Sendable {
    public var accessToken: String
    public var tokenType: String
    public var expiresIn: Int
    /// A signed JWT, or (when the request asked for `encrypted`) a JWE to the client's key
    /// that holds it.
    public var idToken: String
    public var scope: String?
    /// With the `offline_access` scope: single use, rotated at each refresh.
    public var refreshToken: String?

    enum CodingKeys: String, CodingKey {
        case scope
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
        case idToken = "id_token"
        case refreshToken = "refresh_token"
    }

    public init(accessToken: String, tokenType: String = "Bearer", expiresIn: Int, idToken: String, scope: String?,
                refreshToken: String? = nil) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.idToken = idToken
        self.scope = scope
        self.refreshToken = refreshToken
    }
}

/// An OAuth error answer (RFC 6749 §5.2; CIBA §11, §13): `authorization_pending`, `slow_down`,
/// `expired_token`, `access_denied`, `invalid_grant`, `invalid_client`, `invalid_request`, …
public struct OAuthErrorResponse: Codable, Equatable, Sendable {
    public var error: String
    public var errorDescription: String?

    enum CodingKeys: String, CodingKey {
        case error
        case errorDescription = "error_description"
    }

    public init(error: String, errorDescription: String?) {
        self.error = error
        self.errorDescription = errorDescription
    }
}

/// A relying party's registration as a CIBA client (its API key is the client): how it gets its
/// tokens — `poll`, or `ping` to its notification endpoint when the user answered.
public struct CIBAClientRegistration: Codable, Equatable, Sendable {
    public var clientID: String?
    public var backchannelTokenDeliveryMode: String
    public var backchannelClientNotificationEndpoint: String?

    enum CodingKeys: String, CodingKey {
        case clientID = "client_id"
        case backchannelTokenDeliveryMode = "backchannel_token_delivery_mode"
        case backchannelClientNotificationEndpoint = "backchannel_client_notification_endpoint"
    }

    public init(clientID: String? = nil, backchannelTokenDeliveryMode: String, backchannelClientNotificationEndpoint: String? = nil) {
        self.clientID = clientID
        self.backchannelTokenDeliveryMode = backchannelTokenDeliveryMode
        self.backchannelClientNotificationEndpoint = backchannelClientNotificationEndpoint
    }
}
