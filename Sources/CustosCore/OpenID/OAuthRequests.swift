import Foundation

// What the OAuth endpoints ask of the OpenID services and what the services answer, in the
// domain's terms. The HTTP layer reads them out of form bodies and writes them as OAuth's
// JSON (`OAuthWireMapping` in CustosServer): no form or wire type crosses into Core.

/// How a client authenticates at an OAuth endpoint, as its request carried it: HTTP Basic,
/// `client_id` / `client_secret` in the body, or a `private_key_jwt` assertion.
public struct ClientCredentials: Sendable {
    public var basicID: String?
    public var basicSecret: String?
    public var clientID: String?
    public var clientSecret: String?
    public var assertionType: String?
    public var assertion: String?

    public init(basic: (id: String, secret: String)? = nil, clientID: String? = nil, clientSecret: String? = nil,
                assertionType: String? = nil, assertion: String? = nil) {
        basicID = basic?.id
        basicSecret = basic?.secret
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.assertionType = assertionType
        self.assertion = assertion
    }

    var basic: (id: String, secret: String)? { basicID.map { ($0, basicSecret ?? "") } }
}

/// A grant at the token endpoint (RFC 6749 §4.1.3, §6), its parameters as sent (each checked
/// by the service).
public enum TokenGrant: Sendable {
    case authorizationCode(code: String?, redirectURI: String?, verifier: String?)
    case refreshToken(String?, scope: String?)
}

/// What a grant gives the client.
public struct IssuedTokens: Sendable, Equatable {
    public var accessToken: String
    public var expiresIn: Int
    /// A signed JWT, or a JWE to the client's key when the request asked for encryption.
    public var idToken: String
    public var scope: String?
    /// With `offline_access`: single use, rotated at each refresh.
    public var refreshToken: String?
}

/// RFC 7662's answer about one token: inactive, or what the client may know of it.
public struct TokenIntrospection: Sendable, Equatable {
    public enum Kind: String, Sendable { case accessToken = "Bearer", refreshToken = "refresh_token" }

    public var active: Bool
    public var kind: Kind?
    public var clientID: String?
    public var subject: String?
    public var scope: String?
    public var expiresAt: Int?
    public var issuedAt: Int?
    public var issuer: String?
    public var audience: String?
    public var jti: String?
    public var acr: String?
    public var authTime: Int?

    public static let inactive = TokenIntrospection(active: false)

    init(active: Bool, kind: Kind? = nil, clientID: String? = nil, subject: String? = nil, scope: String? = nil, expiresAt: Int? = nil,
         issuedAt: Int? = nil, issuer: String? = nil, audience: String? = nil, jti: String? = nil, acr: String? = nil, authTime: Int? = nil) {
        self.active = active
        self.kind = kind
        self.clientID = clientID
        self.subject = subject
        self.scope = scope
        self.expiresAt = expiresAt
        self.issuedAt = issuedAt
        self.issuer = issuer
        self.audience = audience
        self.jti = jti
        self.acr = acr
        self.authTime = authTime
    }
}

/// A CIBA backchannel authentication request (CIBA Core §7.1), its parameters as sent.
public struct BackchannelRequest: Sendable {
    public var scope: String?
    public var loginHint: String?
    public var idTokenHint: String?
    public var loginHintToken: String?
    public var userCode: String?
    public var acrValues: String?
    public var bindingMessage: String?
    public var requestedExpiry: String?
    /// RAR (RFC 9396) JSON text.
    public var authorizationDetails: String?
    public var clientNotificationToken: String?

    public init(scope: String? = nil, loginHint: String? = nil, idTokenHint: String? = nil, loginHintToken: String? = nil,
                userCode: String? = nil, acrValues: String? = nil, bindingMessage: String? = nil, requestedExpiry: String? = nil,
                authorizationDetails: String? = nil, clientNotificationToken: String? = nil) {
        self.scope = scope
        self.loginHint = loginHint
        self.idTokenHint = idTokenHint
        self.loginHintToken = loginHintToken
        self.userCode = userCode
        self.acrValues = acrValues
        self.bindingMessage = bindingMessage
        self.requestedExpiry = requestedExpiry
        self.authorizationDetails = authorizationDetails
        self.clientNotificationToken = clientNotificationToken
    }
}

/// The answer to a backchannel request: the id the client polls with (CIBA Core §7.3).
public struct BackchannelTicket: Sendable, Equatable {
    public var authReqID: String
    public var expiresIn: Int
    public var interval: Int
}

/// The claims of an access token this server issued, as verified.
struct AccessTokenClaims: Decodable {
    var iss: String
    var sub: String
    var aud: String?
    var clientID: String?
    var scope: String?
    var iat: Int?
    var exp: Double
    var jti: String?
    var acr: String?
    var authTime: Int?
    /// The grant (`gr_…`) or CIBA request (`cb_…`) it came from.
    var sid: String?

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, scope, iat, exp, jti, acr, sid
        case clientID = "client_id"
        case authTime = "auth_time"
    }
}
