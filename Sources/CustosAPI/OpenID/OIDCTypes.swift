import Foundation

/// A client's public key as a JWK (EC P-256), for ID token encryption or `private_key_jwt`.
public struct ClientJWK: Codable, Equatable, Sendable {
    public var kty: String
    public var crv: String?
    public var x: String?
    public var y: String?
    public var kid: String?
    public var use: String?
    public var alg: String?

    public init(kty: String = "EC", crv: String? = "P-256", x: String?, y: String?, kid: String? = nil, use: String? = nil, alg: String? = nil) {
        self.kty = kty
        self.crv = crv
        self.x = x
        self.y = y
        self.kid = kid
        self.use = use
        self.alg = alg
    }
}

/// Registers an OpenID Connect client (admin scope).
public struct CreateOIDCClientRequest: Codable, Equatable, Sendable {
    public var name: String
    /// `public` (a native or browser app: PKCE, no secret) or `confidential` (a server).
    public var clientType: String
    public var redirectURIs: [String]
    /// Default every scope the server serves (`openid offline_access profile email phone address`).
    public var scopes: [String]?
    /// The ID tokens of requests that ask for `encrypted` are encrypted to this key.
    public var encryptionJWK: ClientJWK?
    /// A confidential client with this key authenticates by `private_key_jwt` and gets no secret.
    public var assertionJWK: ClientJWK?
    /// `ES256` (default) or `RS256`: how the client's ID tokens are signed.
    public var idTokenSignedResponseAlg: String?
    /// Where RP-Initiated Logout may send the browser afterwards (at most 10, compared exactly).
    public var postLogoutRedirectURIs: [String]?

    enum CodingKeys: String, CodingKey {
        case name, scopes
        case clientType = "client_type"
        case redirectURIs = "redirect_uris"
        case encryptionJWK = "encryption_jwk"
        case assertionJWK = "assertion_jwk"
        case idTokenSignedResponseAlg = "id_token_signed_response_alg"
        case postLogoutRedirectURIs = "post_logout_redirect_uris"
    }

    public init(name: String, clientType: String, redirectURIs: [String], scopes: [String]? = nil, encryptionJWK: ClientJWK? = nil,
                assertionJWK: ClientJWK? = nil, idTokenSignedResponseAlg: String? = nil, postLogoutRedirectURIs: [String]? = nil) {
        self.postLogoutRedirectURIs = postLogoutRedirectURIs
        self.idTokenSignedResponseAlg = idTokenSignedResponseAlg
        self.name = name
        self.clientType = clientType
        self.redirectURIs = redirectURIs
        self.scopes = scopes
        self.encryptionJWK = encryptionJWK
        self.assertionJWK = assertionJWK
    }
}

/// A registered client. `client_secret` is present once, in the answer that created it.
public struct OIDCClientInfo: Codable, Equatable, Sendable {
    public var clientID: String
    public var name: String
    public var clientType: String
    public var redirectURIs: [String]
    public var scopes: [String]
    /// `none` (public), `client_secret_basic` (also `client_secret_post`), or `private_key_jwt`.
    public var tokenEndpointAuthMethod: String
    public var encryptionJWK: ClientJWK?
    public var assertionJWK: ClientJWK?
    /// `ES256` or `RS256`.
    public var idTokenSignedResponseAlg: String?
    /// Always sent by this server; nil only from one older than post-logout addresses.
    public var postLogoutRedirectURIs: [String]?
    public var createdAt: Date
    public var clientSecret: String?

    enum CodingKeys: String, CodingKey {
        case name, scopes
        case clientID = "client_id"
        case clientType = "client_type"
        case redirectURIs = "redirect_uris"
        case tokenEndpointAuthMethod = "token_endpoint_auth_method"
        case encryptionJWK = "encryption_jwk"
        case assertionJWK = "assertion_jwk"
        case idTokenSignedResponseAlg = "id_token_signed_response_alg"
        case postLogoutRedirectURIs = "post_logout_redirect_uris"
        case createdAt = "created_at"
        case clientSecret = "client_secret"
    }

    public init(clientID: String, name: String, clientType: String, redirectURIs: [String], scopes: [String], tokenEndpointAuthMethod: String,
                encryptionJWK: ClientJWK?, assertionJWK: ClientJWK?, idTokenSignedResponseAlg: String? = nil,
                postLogoutRedirectURIs: [String]? = nil, createdAt: Date, clientSecret: String? = nil) {
        self.postLogoutRedirectURIs = postLogoutRedirectURIs
        self.idTokenSignedResponseAlg = idTokenSignedResponseAlg
        self.clientID = clientID
        self.name = name
        self.clientType = clientType
        self.redirectURIs = redirectURIs
        self.scopes = scopes
        self.tokenEndpointAuthMethod = tokenEndpointAuthMethod
        self.encryptionJWK = encryptionJWK
        self.assertionJWK = assertionJWK
        self.createdAt = createdAt
        self.clientSecret = clientSecret
    }
}

public struct OIDCClientList: Codable, Equatable, Sendable {
    public var clients: [OIDCClientInfo]

    public init(clients: [OIDCClientInfo]) {
        self.clients = clients
    }
}

/// The first step of a bound device's sign-in: the authorization request (the parameters of
/// OpenID Connect Core §3.1.2.1, code flow) and the device that is to sign it.
public struct DeviceSignInRequest: Codable, Equatable, Sendable {
    public var deviceID: String
    public var clientID: String
    public var redirectURI: String
    public var responseType: String
    public var scope: String
    public var state: String?
    public var nonce: String?
    public var codeChallenge: String?
    public var codeChallengeMethod: String?
    public var prompt: String?
    public var maxAge: Int?
    public var acrValues: String?
    /// The user the client asks to sign in; a device of another user is refused.
    public var loginHint: String?
    /// An ID token this server issued to the client, whose `sub` is the user asked for.
    public var idTokenHint: String?
    /// `query` (default) or `form_post`: how a browser takes the answer back to the client.
    public var responseMode: String?
    /// Encrypt the ID token to the client's registered key.
    public var encrypted: Bool?

    enum CodingKeys: String, CodingKey {
        case scope, state, nonce, prompt, encrypted
        case deviceID = "device_id"
        case clientID = "client_id"
        case redirectURI = "redirect_uri"
        case responseType = "response_type"
        case codeChallenge = "code_challenge"
        case codeChallengeMethod = "code_challenge_method"
        case maxAge = "max_age"
        case acrValues = "acr_values"
        case loginHint = "login_hint"
        case idTokenHint = "id_token_hint"
        case responseMode = "response_mode"
    }

    public init(deviceID: String, clientID: String, redirectURI: String, responseType: String = "code", scope: String = "openid",
                state: String? = nil, nonce: String? = nil, codeChallenge: String? = nil, codeChallengeMethod: String? = nil,
                prompt: String? = nil, maxAge: Int? = nil, acrValues: String? = nil, encrypted: Bool? = nil,
                loginHint: String? = nil, idTokenHint: String? = nil, responseMode: String? = nil) {
        self.responseMode = responseMode
        self.loginHint = loginHint
        self.idTokenHint = idTokenHint
        self.deviceID = deviceID
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.responseType = responseType
        self.scope = scope
        self.state = state
        self.nonce = nonce
        self.codeChallenge = codeChallenge
        self.codeChallengeMethod = codeChallengeMethod
        self.prompt = prompt
        self.maxAge = maxAge
        self.acrValues = acrValues
        self.encrypted = encrypted
    }

    /// The request as authorization endpoint parameters.
    public var parameters: [String: String] {
        var parameters = ["client_id": clientID, "redirect_uri": redirectURI, "response_type": responseType, "scope": scope]
        parameters["state"] = state
        parameters["nonce"] = nonce
        parameters["code_challenge"] = codeChallenge
        parameters["code_challenge_method"] = codeChallengeMethod
        parameters["prompt"] = prompt
        parameters["max_age"] = maxAge.map(String.init)
        parameters["acr_values"] = acrValues
        parameters["encrypted"] = encrypted.map { $0 ? "true" : "false" }
        parameters["login_hint"] = loginHint
        parameters["id_token_hint"] = idTokenHint
        parameters["response_mode"] = responseMode
        return parameters
    }
}

/// What the device signs: WebAuthn `PublicKeyCredentialRequestOptions` in short.
public struct DeviceSignInChallengeResponse: Codable, Equatable, Sendable {
    public var authorizationID: String
    /// base64url of the challenge bytes.
    public var challenge: String
    public var rpID: String
    /// The origin to put in `clientDataJSON`.
    public var origin: String
    /// Always `required`: the device's key is unlocked by the user.
    public var userVerification: String
    /// The client's registered name, for the device's prompt ("Sign in to …").
    public var clientName: String
    public var expiresAt: Date

    enum CodingKeys: String, CodingKey {
        case challenge, origin
        case clientName = "client_name"
        case authorizationID = "authorization_id"
        case rpID = "rp_id"
        case userVerification = "user_verification"
        case expiresAt = "expires_at"
    }

    public init(authorizationID: String, challenge: String, rpID: String, origin: String, userVerification: String = "required",
                clientName: String, expiresAt: Date) {
        self.clientName = clientName
        self.authorizationID = authorizationID
        self.challenge = challenge
        self.rpID = rpID
        self.origin = origin
        self.userVerification = userVerification
        self.expiresAt = expiresAt
    }
}

/// A WebAuthn assertion, every byte string in base64url.
public struct WebAuthnAssertionBody: Codable, Equatable, Sendable {
    public var credentialID: String
    public var authenticatorData: String
    public var clientDataJSON: String
    /// ES256 in ASN.1 DER, as authenticators sign.
    public var signature: String

    enum CodingKeys: String, CodingKey {
        case signature
        case credentialID = "credential_id"
        case authenticatorData = "authenticator_data"
        case clientDataJSON = "client_data_json"
    }

    public init(credentialID: String, authenticatorData: String, clientDataJSON: String, signature: String) {
        self.credentialID = credentialID
        self.authenticatorData = authenticatorData
        self.clientDataJSON = clientDataJSON
        self.signature = signature
    }
}

/// The authorization response (RFC 6749 §4.1.2, RFC 9207): the code for the redirect URI.
public struct AuthorizationCodeResponse: Codable, Equatable, Sendable {
    public var code: String
    public var state: String?
    public var redirectURI: String
    public var iss: String
    /// The redirect URI with `code`, `state` and `iss` in its query: where a browser goes for a
    /// request in the query mode.
    public var location: String
    /// `form_post` when the request asked for it: `code`, `state` and `iss` are to be posted to
    /// `redirect_uri` as a form, not sent in `location`'s query. Nil: the query mode.
    public var responseMode: String?

    enum CodingKeys: String, CodingKey {
        case code, state, iss, location
        case redirectURI = "redirect_uri"
        case responseMode = "response_mode"
    }

    public init(code: String, state: String?, redirectURI: String, iss: String, location: String, responseMode: String? = nil) {
        self.responseMode = responseMode
        self.code = code
        self.state = state
        self.redirectURI = redirectURI
        self.iss = iss
        self.location = location
    }
}

/// The UserInfo endpoint's claims: `sub`, and beside it the user's claims that the access
/// token's scopes release (one flat object, as OpenID Connect Core §5.3.2 has it).
public struct UserInfoResponse: Codable, Equatable, Sendable {
    public var sub: String
    public var claims: UserClaims

    public init(sub: String, claims: UserClaims = UserClaims()) {
        self.sub = sub
        self.claims = claims
    }

    private enum CodingKeys: String, CodingKey { case sub }

    public init(from decoder: any Decoder) throws {
        sub = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .sub)
        // The claims share the object with sub (and whatever else a provider adds).
        claims = try UserClaims(flattenedWith: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(sub, forKey: .sub)
        try claims.encode(to: encoder)
    }
}

/// What to pass to `navigator.credentials.create` (or a platform authenticator) to register a
/// passkey for the signed-in user: WebAuthn `PublicKeyCredentialCreationOptions` in short.
public struct PasskeyRegistrationOptions: Codable, Equatable, Sendable {
    public var registrationID: String
    /// base64url of the challenge bytes.
    public var challenge: String
    public var rpID: String
    public var origin: String
    /// The user the credential is for (`user.id` and `user.name`).
    public var userID: String
    /// COSE algorithms accepted: ES256 (-7) only.
    public var algorithms: [Int]
    /// `none` is asked for; `packed` self-attestation is accepted too.
    public var attestation: String
    public var userVerification: String
    public var expiresAt: Date

    enum CodingKeys: String, CodingKey {
        case challenge, origin, algorithms, attestation
        case registrationID = "registration_id"
        case rpID = "rp_id"
        case userID = "user_id"
        case userVerification = "user_verification"
        case expiresAt = "expires_at"
    }

    public init(registrationID: String, challenge: String, rpID: String, origin: String, userID: String, algorithms: [Int] = [-7],
                attestation: String = "none", userVerification: String = "required", expiresAt: Date) {
        self.registrationID = registrationID
        self.challenge = challenge
        self.rpID = rpID
        self.origin = origin
        self.userID = userID
        self.algorithms = algorithms
        self.attestation = attestation
        self.userVerification = userVerification
        self.expiresAt = expiresAt
    }
}

/// Starts a passkey registration: the user's password again, so that a stolen session alone
/// cannot add a lasting credential to the account.
public struct PasskeyRegistrationStart: Codable, Equatable, Sendable {
    public var password: String

    public init(password: String) {
        self.password = password
    }
}

/// The authenticator's answer to `PasskeyRegistrationOptions` (base64url byte strings).
public struct PasskeyRegistrationRequest: Codable, Equatable, Sendable {
    public var attestationObject: String
    public var clientDataJSON: String
    /// The name the passkey gets in the user's device list.
    public var name: String

    enum CodingKeys: String, CodingKey {
        case name
        case attestationObject = "attestation_object"
        case clientDataJSON = "client_data_json"
    }

    public init(attestationObject: String, clientDataJSON: String, name: String) {
        self.attestationObject = attestationObject
        self.clientDataJSON = clientDataJSON
        self.name = name
    }
}

/// `POST /v1/login/passkey/challenge`: what `navigator.credentials.get` needs (no user id: the
/// authenticator offers the user's passkeys for this relying party).
public struct PasskeyLoginChallengeResponse: Codable, Equatable, Sendable {
    /// base64url, single use.
    public var challenge: String
    public var rpID: String
    public var userVerification: String
    public var expiresAt: Date

    enum CodingKeys: String, CodingKey {
        case challenge
        case rpID = "rp_id"
        case userVerification = "user_verification"
        case expiresAt = "expires_at"
    }

    public init(challenge: String, rpID: String, userVerification: String = "required", expiresAt: Date) {
        self.challenge = challenge
        self.rpID = rpID
        self.userVerification = userVerification
        self.expiresAt = expiresAt
    }
}

/// `POST /v1/login/passkey`: the assertion over the challenge (the credential id is the
/// device id, `pk_…` for a passkey), plus the password when the policy asks for it.
public struct PasskeyLoginRequest: Codable, Equatable, Sendable {
    public var credentialID: String
    public var authenticatorData: String
    public var clientDataJSON: String
    /// ES256 in ASN.1 DER, as authenticators sign.
    public var signature: String
    public var password: String?

    enum CodingKeys: String, CodingKey {
        case signature, password
        case credentialID = "credential_id"
        case authenticatorData = "authenticator_data"
        case clientDataJSON = "client_data_json"
    }

    public init(credentialID: String, authenticatorData: String, clientDataJSON: String, signature: String, password: String? = nil) {
        self.credentialID = credentialID
        self.authenticatorData = authenticatorData
        self.clientDataJSON = clientDataJSON
        self.signature = signature
        self.password = password
    }
}
