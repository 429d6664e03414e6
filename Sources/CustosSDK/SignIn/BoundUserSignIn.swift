import CustosAPI
import Foundation

/// `authenticateBoundUser` options, as in the seed's `XmBindIdBoundUserAuthenticationRequest`.
public struct BoundUserAuthenticationRequest: Sendable, Equatable {
    /// Where the client receives the code; registered for the client, compared exactly.
    public var redirectURI: String
    /// Encrypt the ID token to the client's registered key, so that only the app's server
    /// reads it (`exchangeToken` then does not validate it: the server does).
    public var encrypted: Bool
    /// PKCE S256 (on by default; a public client must use it).
    public var usePKCE: Bool
    /// Whether the app shows a loader while the device prompts (off by default); handed to the
    /// app in `LocalAuthenticationRequest.showLoader`.
    public var showLoader: Bool
    /// How long the user has to answer the local authentication (default 10 s).
    public var timeout: TimeInterval
    /// Default `openid offline_access`.
    public var scope: String
    /// The client; nil: `Configuration.clientID`.
    public var clientID: String?

    public init(redirectURI: String, encrypted: Bool = false, usePKCE: Bool = true, showLoader: Bool = false, timeout: TimeInterval = 10,
                scope: String = "openid offline_access", clientID: String? = nil) {
        self.redirectURI = redirectURI
        self.encrypted = encrypted
        self.usePKCE = usePKCE
        self.showLoader = showLoader
        self.timeout = timeout
        self.scope = scope
        self.clientID = clientID
    }
}

/// A successful bound-device sign-in: the code for the redirect URI, and what the exchange
/// needs (the PKCE verifier and the nonce stay on the device).
public struct AuthorizationResponse: Sendable, Equatable {
    public var code: String
    public var state: String
    public var redirectURI: String
    public var issuer: String
    /// The redirect URI with `code`, `state` and `iss`.
    public var location: String
    public var clientID: String
    /// The PKCE verifier; nil when the request turned PKCE off.
    public var codeVerifier: String?
    public var nonce: String
    public var encrypted: Bool

    /// A response built elsewhere (a code the app got another way), to exchange.
    public init(code: String, state: String, redirectURI: String, issuer: String, location: String, clientID: String, codeVerifier: String?,
                nonce: String, encrypted: Bool) {
        self.code = code
        self.state = state
        self.redirectURI = redirectURI
        self.issuer = issuer
        self.location = location
        self.clientID = clientID
        self.codeVerifier = codeVerifier
        self.nonce = nonce
        self.encrypted = encrypted
    }
}

/// The tokens `exchangeToken` returns; `idToken` was validated unless it is encrypted.
public typealias OIDCTokens = TokenResponse
