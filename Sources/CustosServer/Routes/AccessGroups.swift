import CustosAPI
import CustosCore
import CustosHTTP

/// The route groups of the API, one per kind of access, with the authentication endpoints'
/// rate limits. Every credential is read here and nowhere else.
struct AccessGroups: Sendable {
    let anyone: AccessGroup<Void>
    let session: AccessGroup<Session>
    let admin: AccessGroup<APIKey>
    let rp: AccessGroup<APIKey>
    /// Activation, login challenge and login: limited per client address (never per user id,
    /// which anyone can name: a limit on it would let a stranger lock the user out).
    let signIn: AccessGroup<Void>
    /// Password change: per client address, and per user once a session proves who it is.
    let passwordChange: AccessGroup<Session?>
    /// Selfie frames and document images: per client address and per user.
    let biometricUpload: AccessGroup<Session>
    /// Answers to notifications (each may carry a password): per client address and per user.
    let stepUp: AccessGroup<Session>

    init(identity: IdentityService, apiKeys: APIKeyService, rateLimiter: RateLimiter?) {
        let session = AccessGroup(access: .session, group: RouteGroup { request in
            guard let token = Self.bearer(request) else { throw IdentityError.invalidSession }
            return try identity.authenticateSession(token: token)
        })
        self.anyone = AccessGroup(access: .anyone, group: .open)
        self.session = session
        self.admin = Self.apiKey(.admin, apiKeys)
        self.rp = Self.apiKey(.rp, apiKeys)

        // With a token in the body and no bearer, the token authorizes; a bearer must be a session.
        let sessionOrToken = AccessGroup(access: .sessionOrChangeToken, group: RouteGroup { request -> Session? in
            guard let token = Self.bearer(request) else { return nil }
            return try identity.authenticateSession(token: token)
        })
        guard let limiter = rateLimiter else {
            signIn = anyone
            passwordChange = sessionOrToken
            biometricUpload = session
            stepUp = session
            return
        }
        signIn = anyone.admitting { try limiter.admitClient($0, scope: "sign_in") }
        passwordChange = sessionOrToken
            .admitting { try limiter.admitClient($0, scope: "password_change") }
            .checking { _, session in if let session { try limiter.admitUser(session.userID, scope: "password_change") } }
        biometricUpload = session
            .admitting { try limiter.admitClient($0, scope: "biometric_upload") }
            .checking { _, session in try limiter.admitUser(session.userID, scope: "biometric_upload") }
        stepUp = session
            .admitting { try limiter.admitClient($0, scope: "step_up") }
            .checking { _, session in try limiter.admitUser(session.userID, scope: "step_up") }
    }

    private static func apiKey(_ scope: APIKeyScope, _ service: APIKeyService) -> AccessGroup<APIKey> {
        AccessGroup(access: .apiKey(scope), group: RouteGroup { request in
            guard let secret = bearer(request) else { throw IdentityError.invalidAPIKey }
            return try service.authenticate(secret: secret, requiring: scope)
        })
    }

    /// The credential of `Authorization: Bearer …`.
    static func bearer(_ request: Request) -> String? {
        guard let value = request.headers["Authorization"] else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return String(parts[1]).trimmingCharacters(in: .whitespaces)
    }
}
