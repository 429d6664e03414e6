import CustosAPI
import Foundation

/// An OpenID Connect authorization request (code flow) after validation against its client.
public struct AuthorizationRequest: Equatable, Sendable {
    public var clientID: String
    public var redirectURI: String
    public var scope: String
    public var state: String?
    public var nonce: String?
    /// PKCE S256 challenge (required of public clients).
    public var codeChallenge: String?
    public var prompt: [String]
    public var maxAge: Int?
    public var acrValues: [String]
    /// The ID token is to be encrypted to the client's registered key.
    public var encryptIDToken: Bool
    /// The user the client asks to sign in (`login_hint`, or the `sub` of an `id_token_hint`):
    /// a device of another user is refused, never signed in silently.
    public var loginHint: String?
    /// How the answer goes back to the client: in the redirect URI's query, or posted to it
    /// by the browser as a form (OAuth 2.0 Form Post Response Mode).
    public var responseMode: ResponseMode

    public enum ResponseMode: String, Sendable {
        case query
        case formPost = "form_post"
    }

    public init(clientID: String, redirectURI: String, scope: String, state: String? = nil, nonce: String? = nil,
                codeChallenge: String? = nil, prompt: [String] = [], maxAge: Int? = nil, acrValues: [String] = [],
                encryptIDToken: Bool = false, loginHint: String? = nil, responseMode: ResponseMode = .query) {
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.scope = scope
        self.state = state
        self.nonce = nonce
        self.codeChallenge = codeChallenge
        self.prompt = prompt
        self.maxAge = maxAge
        self.acrValues = acrValues
        self.encryptIDToken = encryptIDToken
        self.loginHint = loginHint
        self.responseMode = responseMode
    }
}

/// Why an authorization request was refused, and whether the answer may go to the redirect
/// URI: only once the client and the redirect URI are known good (RFC 6749 §4.1.2.1), so the
/// endpoint is never an open redirector.
public struct AuthorizationRequestError: Error, Equatable, Sendable {
    public let error: OAuthError
    /// Where the error may be sent, with the request's `state`; nil: answer the user agent itself.
    public let redirectURI: String?
    public let state: String?
    /// How the error goes to `redirectURI`.
    public let responseMode: AuthorizationRequest.ResponseMode

    public init(_ error: OAuthError, redirectURI: String? = nil, state: String? = nil, responseMode: AuthorizationRequest.ResponseMode = .query) {
        self.error = error
        self.redirectURI = redirectURI
        self.state = state
        self.responseMode = responseMode
    }
}

extension AuthorizationRequest {
    /// The parameters a request may carry (others are ignored, RFC 6749 §3.1).
    static let maximumValueLength = 2048
    /// An ID token as a hint: longer than other values (a long nonce is copied into it).
    static let maximumIDTokenLength = 8192

    static func maximumLength(of name: String) -> Int {
        name == "id_token_hint" ? maximumIDTokenLength : maximumValueLength
    }

    /// Validates `parameters` (the query of `GET /oauth2/authorize`, or the native call's)
    /// against `client`.
    static func validate(_ parameters: [String: String], client: OIDCClient?) throws -> AuthorizationRequest {
        for (name, value) in parameters where value.utf8.count > maximumLength(of: name) {
            throw AuthorizationRequestError(OAuthError(.invalidRequest, "a parameter is longer than \(maximumLength(of: name)) bytes"))
        }
        guard let clientID = parameters["client_id"], !clientID.isEmpty else {
            throw AuthorizationRequestError(OAuthError(.invalidRequest, "client_id is required"))
        }
        guard let client, client.id == clientID else {
            // invalid_client is a token endpoint error (a 401 that browsers answer with a login box):
            // the authorization endpoint's answer is invalid_request (RFC 6749 §4.1.2.1).
            throw AuthorizationRequestError(OAuthError(.invalidRequest, "unknown client_id"))
        }
        guard let redirectURI = parameters["redirect_uri"] else {
            throw AuthorizationRequestError(OAuthError(.invalidRequest, "redirect_uri is required"))
        }
        guard client.accepts(redirectURI: redirectURI) else {
            throw AuthorizationRequestError(OAuthError(.invalidRequest,
                                                       "redirect_uri is not registered for this client (exact match; any port on 127.0.0.1 and [::1])"))
        }
        let state = parameters["state"]
        // Read first, so every refusal from here goes back the way the client asked. A form can
        // be posted only to a web address whose origin a page's policy can name (an app's own
        // scheme, an IPv6 literal take the query).
        let isWebAddress = Self.formOrigin(redirectURI) != nil
        let responseMode: ResponseMode = parameters["response_mode"] == "form_post" && isWebAddress ? .formPost : .query
        func refuse(_ code: OAuthError.Code, _ message: String) -> AuthorizationRequestError {
            AuthorizationRequestError(OAuthError(code, message), redirectURI: redirectURI, state: state, responseMode: responseMode)
        }
        switch parameters["response_mode"] {
        case nil, "query": break
        case "form_post" where isWebAddress: break
        case "form_post": throw refuse(.invalidRequest, "response_mode=form_post needs an http or https redirect_uri with a host name or IPv4 address")
        default: throw refuse(.invalidRequest, "response_mode must be query or form_post")
        }
        if parameters["request"] != nil { throw refuse(.requestNotSupported, "request objects are not supported") }
        if parameters["request_uri"] != nil { throw refuse(.requestURINotSupported, "request_uri is not supported") }
        guard let responseType = parameters["response_type"] else { throw refuse(.invalidRequest, "response_type is required") }
        guard responseType == "code" else { throw refuse(.unsupportedResponseType, "only the code flow (response_type=code) is served") }
        let asked = (parameters["scope"] ?? "").split(separator: " ").map(String.init)
        guard asked.contains("openid") else { throw refuse(.invalidScope, "scope must include openid") }
        // What the client may not have is left out, not refused (OIDC Core §3.1.2.1: scopes not
        // understood are ignored; RFC 6749 §3.3: the token answer names the scope granted).
        var scopes: [String] = []
        for scope in asked where client.scopes.contains(scope) && !scopes.contains(scope) { scopes.append(scope) }
        let challenge = parameters["code_challenge"]
        let method = parameters["code_challenge_method"]
        if let challenge {
            guard (method ?? "plain") == "S256" else { throw refuse(.invalidRequest, "code_challenge_method must be S256 (plain is refused)") }
            guard challenge.utf8.count == 43, Data(base64URLEncoded: challenge)?.count == 32 else {
                throw refuse(.invalidRequest, "code_challenge must be the base64url SHA-256 of the verifier (43 characters)")
            }
        } else {
            if method != nil { throw refuse(.invalidRequest, "code_challenge_method without code_challenge") }
            if client.kind == .public { throw refuse(.invalidRequest, "public clients must use PKCE (code_challenge with S256)") }
        }
        let prompt = (parameters["prompt"] ?? "").split(separator: " ").map(String.init)
        if let unknown = prompt.first(where: { !["none", "login", "consent", "select_account"].contains($0) }) {
            throw refuse(.invalidRequest, "unknown prompt value \(unknown)")
        }
        if prompt.contains("none"), prompt.count > 1 { throw refuse(.invalidRequest, "prompt=none cannot be combined") }
        var maxAge: Int?
        if let text = parameters["max_age"] {
            guard let value = Int(text), value >= 0 else { throw refuse(.invalidRequest, "max_age must be a non-negative integer") }
            maxAge = value
        }
        let acrValues = (parameters["acr_values"] ?? "").split(separator: " ").map(String.init)
        let encrypted: Bool
        switch parameters["encrypted"] {
        case nil, "false": encrypted = false
        case "true": encrypted = true
        default: throw refuse(.invalidRequest, "encrypted must be true or false")
        }
        if encrypted, client.encryptionJWK == nil {
            throw refuse(.invalidRequest, "this client registered no encryption key, so its ID tokens cannot be encrypted")
        }
        if let nonce = parameters["nonce"], nonce.isEmpty { throw refuse(.invalidRequest, "nonce must not be empty") }
        // A hint is a user id: anything else could match no one, and would only put the
        // requester's text on the sign-in page.
        if let hint = parameters["login_hint"], (try? InputRules.checkUserID(hint)) == nil {
            throw refuse(.invalidRequest, "login_hint must be a user id (1-128 of A-Z a-z 0-9 . _ @ + -)")
        }
        return AuthorizationRequest(clientID: clientID, redirectURI: redirectURI, scope: scopes.joined(separator: " "), state: state,
                                    nonce: parameters["nonce"], codeChallenge: challenge, prompt: prompt, maxAge: maxAge,
                                    acrValues: acrValues, encryptIDToken: encrypted, loginHint: parameters["login_hint"], responseMode: responseMode)
    }
}

extension AuthorizationRequest {
    /// `scheme://host[:port]` of an http(s) redirect URI whose host a Content-Security-Policy
    /// source can name (a DNS name or an IPv4 address: not an IPv6 literal); nil otherwise.
    public static func formOrigin(_ redirectURI: String) -> String? {
        guard let url = URLComponents(string: redirectURI), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = url.host, !host.isEmpty,
              host.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "." || $0 == "-") })
        else { return nil }
        return "\(scheme)://\(host.lowercased())" + (url.port.map { ":\($0)" } ?? "")
    }
}
