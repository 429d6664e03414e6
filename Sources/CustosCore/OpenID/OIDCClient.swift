import Foundation

/// A relying party that signs users in through the OpenID Connect authorization code flow.
///
/// Public clients (native apps, single-page apps) hold no secret and must use PKCE S256;
/// confidential clients (an app's server) authenticate at the token endpoint with their secret
/// (`client_secret_basic`, `client_secret_post`) or a JWT signed by their key (`private_key_jwt`).
public struct OIDCClient: Equatable, Sendable {
    /// Every client id starts with it (a CIBA client, an API key, never does).
    public static let idPrefix = "oc_"

    public enum Kind: String, Sendable, CaseIterable {
        case `public`
        case confidential
    }

    public var id: String
    public var name: String
    public var kind: Kind
    /// SHA-256 of the client secret (confidential clients that use one); the secret itself
    /// is shown once, at creation.
    public var secretDigest: Data?
    /// Redirect URIs, compared exactly (RFC 9700 §4.1.3) but for a loopback address's port
    /// (`accepts(redirectURI:)`).
    public var redirectURIs: [String]
    /// The scopes the client may ask for (always including `openid`).
    public var scopes: [String]
    /// The public EC P-256 JWK (JSON) that ID tokens are encrypted to when a request asks
    /// (`ECDH-ES+A256KW`, `A256GCM`); nil: this client gets signed ID tokens only.
    public var encryptionJWK: String?
    /// The public EC P-256 JWK (JSON) that verifies the client's `private_key_jwt` assertions.
    public var assertionJWK: String?
    /// How its ID tokens are signed (`id_token_signed_response_alg`, OpenID Connect Dynamic
    /// Client Registration §2): ES256 unless the client asks for RS256.
    public var idTokenAlgorithm: SigningAlgorithm
    /// Where RP-Initiated Logout may send the browser afterwards, compared exactly.
    public var postLogoutRedirectURIs: [String]
    public var createdAt: Date

    public init(id: String, name: String, kind: Kind, secretDigest: Data? = nil, redirectURIs: [String], scopes: [String],
                encryptionJWK: String? = nil, assertionJWK: String? = nil, idTokenAlgorithm: SigningAlgorithm = .es256,
                postLogoutRedirectURIs: [String] = [], createdAt: Date) {
        self.idTokenAlgorithm = idTokenAlgorithm
        self.postLogoutRedirectURIs = postLogoutRedirectURIs
        self.id = id
        self.name = name
        self.kind = kind
        self.secretDigest = secretDigest
        self.redirectURIs = redirectURIs
        self.scopes = scopes
        self.encryptionJWK = encryptionJWK
        self.assertionJWK = assertionJWK
        self.createdAt = createdAt
    }
}

extension OIDCClient {
    /// Whether `uri` is one of the redirect URIs: the same string, or — for a registered
    /// `http://127.0.0.1` or `http://[::1]` URI — the same URI on another port, which a native
    /// app's listener gets from the system at each sign-in (RFC 8252 §7.3). `localhost` is
    /// compared exactly: a name may resolve elsewhere (RFC 8252 §8.3).
    public func accepts(redirectURI uri: String) -> Bool {
        if redirectURIs.contains(uri) { return true }
        guard let asked = Self.loopbackWithoutPort(uri) else { return false }
        return redirectURIs.contains { Self.loopbackWithoutPort($0) == asked }
    }

    /// A loopback IP literal's `http` URI with its port taken out; nil for any other URI.
    private static func loopbackWithoutPort(_ uri: String) -> String? {
        guard var url = URLComponents(string: uri), url.scheme == "http", url.user == nil, url.password == nil,
              let host = url.percentEncodedHost, host == "127.0.0.1" || host == "[::1]" else { return nil }
        url.port = nil
        return url.string
    }
}

/// What an administrator gives to register a client.
public struct OIDCClientDraft: Sendable {
    public var name: String
    public var kind: OIDCClient.Kind
    public var redirectURIs: [String]
    public var scopes: [String]
    public var encryptionJWK: String?
    public var assertionJWK: String?
    public var idTokenAlgorithm: SigningAlgorithm
    public var postLogoutRedirectURIs: [String]

    public init(name: String, kind: OIDCClient.Kind, redirectURIs: [String], scopes: [String] = OIDCService.supportedScopes,
                encryptionJWK: String? = nil, assertionJWK: String? = nil, idTokenAlgorithm: SigningAlgorithm = .es256,
                postLogoutRedirectURIs: [String] = []) {
        self.idTokenAlgorithm = idTokenAlgorithm
        self.postLogoutRedirectURIs = postLogoutRedirectURIs
        self.name = name
        self.kind = kind
        self.redirectURIs = redirectURIs
        self.scopes = scopes
        self.encryptionJWK = encryptionJWK
        self.assertionJWK = assertionJWK
    }
}
