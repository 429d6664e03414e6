import CustosAPI
import Foundation

/// The OpenID Connect provider: clients, the authorization code flow with PKCE, and sign-in
/// by a bound device (`authenticateBoundUser`): the device signs the server's challenge in
/// WebAuthn assertion format, so a device key and a browser passkey meet one verifier.
public final class OIDCService: Sendable {
    public typealias Storage = OIDCStore & CIBAStore & NotificationStore & IdentityStore & SingleUseTokenStore & AtomicStore

    let store: any Storage
    let identity: IdentityService
    let webAuthn: WebAuthnVerifier
    let clientKeys: any ClientKeyOperations
    let digester: any SecretDigester
    let random: any RandomSource
    let clock: any Clock
    let signer: any TokenSigner
    let audit: AuditTrail?
    public let policy: OIDCPolicy

    public init(store: any Storage, identity: IdentityService, keys: any DeviceKeyVerifier, clientKeys: any ClientKeyOperations,
                digester: any SecretDigester, random: any RandomSource, clock: any Clock, signer: any TokenSigner,
                audit: AuditTrail? = nil, policy: OIDCPolicy) {
        self.store = store
        self.identity = identity
        self.webAuthn = WebAuthnVerifier(rpID: policy.rpID, origins: [policy.origin], keys: keys, digester: digester)
        self.clientKeys = clientKeys
        self.digester = digester
        self.random = random
        self.clock = clock
        self.signer = signer
        self.audit = audit
        self.policy = policy
    }

    /// The level a bound device's sign-in proves (see `Assurance`): a signature by its key, or,
    /// for a key the password alone bound, no more than the password did.
    public static func signInLevel(of device: Device) -> AuthLevel {
        device.boundBy.isConfirmed ? .deviceSignature : .password
    }

    /// The most a sign-in here proves (`signInLevel` of a confirmed device).
    static let strongestSignIn = AuthLevel.deviceSignature
    /// `openid`, `offline_access` (a refresh token), and the scopes that release the user's
    /// claims from UserInfo (`UserClaims.scopes`).
    public static let supportedScopes = ["openid", "offline_access"] + UserClaims.scopes

    // MARK: Authorization requests

    /// Validates a browser's authorization request (`GET /oauth2/authorize`).
    public func validate(_ parameters: [String: String]) throws -> AuthorizationRequest {
        try validated(parameters, client: try client(named: parameters["client_id"]))
    }

    /// `AuthorizationRequest.validate`, with an `id_token_hint`'s subject as the request's
    /// hint: an ID token this server signed for this client (expired ones too, OIDC Core
    /// §3.1.2.1), which agrees with `login_hint` when both are given.
    func validated(_ parameters: [String: String], client: OIDCClient?) throws -> AuthorizationRequest {
        var request = try AuthorizationRequest.validate(parameters, client: client)
        // acr_values that no device's sign-in meets are answered now, at the redirect URI, not
        // left to a device that can only refuse them (OpenID Connect Core §3.1.2.6).
        if !request.acrValues.isEmpty, !request.acrValues.contains(where: Assurance.of(Self.strongestSignIn).meets(acr:)) {
            throw AuthorizationRequestError(
                OAuthError(.unmetAuthenticationRequirements,
                           "a sign-in here proves at most \(Self.strongestSignIn.acr); acr_values asks for \(request.acrValues.joined(separator: " ").prefix(200))"),
                redirectURI: request.redirectURI, state: request.state, responseMode: request.responseMode)
        }
        guard let hint = parameters["id_token_hint"] else { return request }
        func refuse(_ message: String) -> AuthorizationRequestError {
            AuthorizationRequestError(OAuthError(.invalidRequest, message), redirectURI: request.redirectURI, state: request.state,
                                      responseMode: request.responseMode)
        }
        guard let claims = verifiedIDToken(hint), claims.aud.contains(request.clientID) else {
            throw refuse("id_token_hint is not an ID token this server signed for this client (an encrypted one cannot be read here)")
        }
        if let login = request.loginHint, login != claims.sub { throw refuse("login_hint and id_token_hint name different users") }
        request.loginHint = claims.sub
        return request
    }

    /// The first step of a bound device's sign-in: validates the request and answers the
    /// challenge the device is to sign. An unbound device is `unknown_user`; a revoked device
    /// or a disabled or locked user is `access_denied`.
    public func beginDeviceSignIn(_ parameters: [String: String], deviceID: String) throws -> DeviceSignInChallenge {
        let client = try client(named: parameters["client_id"])
        let request = try validated(parameters, client: client)
        if request.prompt.contains("none") {
            throw AuthorizationRequestError(OAuthError(.loginRequired, "a bound device's sign-in prompts the user (prompt=none cannot be met)"),
                                            redirectURI: request.redirectURI, state: request.state, responseMode: request.responseMode)
        }
        let now = clock.now()
        let device = try signInDevice(deviceID, now: now)
        // acr_values asking more than this device's signature proves end here: the sign-in would
        // claim less, and the client asked for more (OpenID Connect Core 3.1.2.6).
        let level = Self.signInLevel(of: device)
        if !request.acrValues.isEmpty, !request.acrValues.contains(where: Assurance.of(level).meets(acr:)) {
            throw AuthorizationRequestError(
                OAuthError(.unmetAuthenticationRequirements,
                           "this device's sign-in proves \(level.acr); acr_values asks for \(request.acrValues.joined(separator: " ").prefix(200))"),
                redirectURI: request.redirectURI, state: request.state, responseMode: request.responseMode)
        }
        let challenge = Data(random.bytes(count: 32))
        let pending = PendingAuthorization(id: "az_" + random.hexID(bytes: 16), request: request, userID: device.userID, deviceID: device.id,
                                           challengeDigest: digester.digest(bytes: challenge), createdAt: now,
                                           expiresAt: now.addingTimeInterval(policy.challengeLifetime))
        try store.createPendingAuthorization(pending)
        return DeviceSignInChallenge(authorizationID: pending.id, challenge: challenge, rpID: policy.rpID, origin: policy.origin,
                                     userID: device.userID, clientName: client?.name ?? request.clientID, expiresAt: pending.expiresAt,
                                     userVerification: device.boundBy == .passkey ? "required" : "preferred")
    }

    /// The second step: the device's assertion over the challenge. One attempt per challenge:
    /// the request is spent whatever the outcome. A failed proof counts against the device (and
    /// the client address) as a failed login does, never against the user.
    public func completeDeviceSignIn(authorizationID: String, assertion: WebAuthnAssertion, client: String? = nil) throws -> IssuedCode {
        try InputRules.checkToken(authorizationID, field: "authorization_id")
        let now = clock.now()
        guard let pending = try store.takePendingAuthorization(id: authorizationID), pending.expiresAt > now else {
            throw OIDCError.authorizationNotFound
        }
        if let wait = try identity.throttle.retryAfter(deviceID: pending.deviceID, client: client, now: now) {
            throw IdentityError.throttled(retryAfter: Int(wait.rounded(.up)))
        }
        let device = try signInDevice(pending.deviceID, now: now)
        var userVerifiedFlag = false
        do {
            guard assertion.credentialID == device.id else { throw WebAuthnFailure.malformed("the credential is not the device that was challenged") }
            let count = try webAuthn.verify(assertion, challengeDigest: pending.challengeDigest, key: try identity.keys.parse(jwkJSON: device.publicKeyJWK),
                                            storedSignCount: device.signCount,
                                            // A passkey's UV is WebAuthn's, required as its challenge says; a
                                            // Custos device key's own UV bit is recorded, not required.
                                            requireUserVerification: device.boundBy == .passkey)
            userVerifiedFlag = (try AuthenticatorData(parsing: assertion.authenticatorData)).flags & AuthenticatorData.userVerified != 0
            guard try store.advanceSignCount(deviceID: device.id, to: count) else {
                throw WebAuthnFailure.counterWentBack(stored: device.signCount, presented: count)
            }
        } catch let failure as WebAuthnFailure {
            _ = try identity.throttle.recordFailure(deviceID: device.id, client: client, now: now)
            throw OIDCError.assertionRejected(failure.message)
        }
        // The client asked for one user: another's device is refused, not signed in instead —
        // told only once the device has signed, so a device id and a guess learn no owner.
        if let hint = pending.request.loginHint, hint != device.userID {
            throw OIDCError.otherUser
        }
        try store.touchDevice(id: device.id, at: now, passwordVerified: false)
        let request = pending.request
        let grant = OIDCGrant(id: "gr_" + random.hexID(bytes: 16), clientID: request.clientID, userID: device.userID, deviceID: device.id,
                              scope: request.scope, nonce: request.nonce, authTime: now, level: Self.signInLevel(of: device),
                              encryptIDToken: request.encryptIDToken, createdAt: now)
        let code = "ac_" + Data(random.bytes(count: 32)).base64URLEncodedString
        try store.atomically {
            try store.createGrant(grant, code: AuthorizationCode(digest: digester.digest(code), grantID: grant.id, redirectURI: request.redirectURI,
                                                                  codeChallenge: request.codeChallenge,
                                                                  expiresAt: now.addingTimeInterval(policy.codeLifetime)))
            // The device's UV bit is its own word about its local prompt: recorded, not claimed.
            try audit?.record(.oidcSignIn, userID: device.userID, details: ["client_id": request.clientID, "device_id": device.id,
                                                                             "acr": grant.level.acr,
                                                                             "device_says_user_verified": userVerifiedFlag ? "true" : "false"])
        }
        return IssuedCode(code: code, state: request.state, redirectURI: request.redirectURI, issuer: policy.issuer,
                          responseMode: request.responseMode)
    }

    /// The device, if it may sign in now.
    private func signInDevice(_ deviceID: String, now: Date) throws -> Device {
        try InputRules.checkToken(deviceID, field: "device_id")
        guard let device = try store.device(id: deviceID) else { throw OIDCError.unknownUser }
        guard !device.isRevoked, let user = try store.user(id: device.userID), user.status == .active, !user.isLocked(at: now) else {
            throw OIDCError.accessDenied
        }
        return device
    }

    /// Deletes what ended an hour ago or more: challenges, codes, refresh tokens, assertion
    /// ids, and grants no token refers to any more (an access token lives far less than an hour).
    @discardableResult
    public func purgeEnded() throws -> Int {
        try store.purgeOIDC(before: clock.now().addingTimeInterval(-3600))
    }

    func client(named id: String?) throws -> OIDCClient? {
        guard let id, !id.isEmpty, id.utf8.count <= 128 else { return nil }
        return try store.oidcClient(id: id)
    }
}

/// What a device signs to sign in.
public struct DeviceSignInChallenge: Equatable, Sendable {
    public var authorizationID: String
    public var challenge: Data
    public var rpID: String
    public var origin: String
    public var userID: String
    /// The client's name, for the device to show ("Sign in to …").
    public var clientName: String
    public var expiresAt: Date
    /// WebAuthn's `userVerification`: `required` for a passkey (its UV is checked), `preferred`
    /// for a Custos device key (its UV bit is the app's word: recorded, not required).
    public var userVerification: String
}

/// An authorization code for the client's redirect URI.
public struct IssuedCode: Equatable, Sendable {
    public var code: String
    public var state: String?
    public var redirectURI: String
    public var issuer: String
    /// How the request asked for the answer (`form_post`: posted by the browser as a form).
    public var responseMode: AuthorizationRequest.ResponseMode = .query

    /// The redirect URI with `code`, `state` and `iss` (RFC 9207) in its query.
    public var location: String {
        AuthorizationRedirect.location(redirectURI, ["code": code, "state": state, "iss": issuer])
    }
}

/// Builds redirect locations: the parameters appended to the redirect URI's query.
public enum AuthorizationRedirect {
    /// `redirectURI` exactly as registered, with the parameters appended to its query: its own
    /// query is kept byte for byte (a registered `?x=a+b` keeps meaning what it meant).
    public static func location(_ redirectURI: String, _ parameters: [String: String?]) -> String {
        var added = URLComponents()
        added.queryItems = parameters.sorted(by: { $0.key < $1.key }).compactMap { name, value in value.map { URLQueryItem(name: name, value: $0) } }
        // URLComponents leaves "+" alone in queries, where form decoders read it as a space: encode it.
        guard let encoded = added.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B"), !encoded.isEmpty else { return redirectURI }
        guard let components = URLComponents(string: redirectURI) else { return redirectURI }
        let (base, fragment) = redirectURI.firstIndex(of: "#").map { (String(redirectURI[..<$0]), String(redirectURI[$0...])) } ?? (redirectURI, "")
        switch components.percentEncodedQuery {
        case nil: return base + "?" + encoded + fragment
        case let query? where query.isEmpty || base.hasSuffix("&"): return base + encoded + fragment
        default: return base + "&" + encoded + fragment
        }
    }
}
