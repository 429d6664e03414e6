import Foundation

/// Lifetimes and names of the OpenID Connect provider.
public struct OIDCPolicy: Sendable, Equatable {
    /// The issuer (`iss`); also the origin WebAuthn clients report and, by its host, the rp id.
    public var issuer: String
    /// How long a device has to sign the challenge of a sign-in request.
    public var challengeLifetime: TimeInterval = 60
    /// How long an authorization code may wait for its exchange (RFC 6749 §4.1.2: short).
    public var codeLifetime: TimeInterval = 60
    public var idTokenLifetime = 300
    public var accessTokenLifetime = 300
    public var refreshTokenLifetime: TimeInterval = 30 * 24 * 3600
    /// How far ahead a `private_key_jwt` assertion may expire (client libraries default to an hour).
    public var clientAssertionLifetime: TimeInterval = 3660

    public init(issuer: String) {
        self.issuer = issuer
    }

    /// The WebAuthn relying party id: the issuer's host.
    public var rpID: String { URLComponents(string: issuer)?.host ?? issuer }

    /// The WebAuthn origin: the issuer's scheme, host and port.
    public var origin: String {
        guard let url = URLComponents(string: issuer), let scheme = url.scheme, let host = url.host else { return issuer }
        return "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "")
    }

    public var tokenEndpoint: String { issuer + "/oauth2/token" }
}
