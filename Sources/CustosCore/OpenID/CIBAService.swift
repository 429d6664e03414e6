import CustosAPI
import Foundation

/// OpenID Connect Client-Initiated Backchannel Authentication (CIBA Core 1.0) on the step-up
/// engine: a backchannel request becomes a notification with `approve` (at the level the
/// `acr_values` ask for) and `deny`; the client polls the token endpoint (`poll`), or is pinged
/// when the user answered (`ping`), and gets an ID token whose `acr` and `amr` say what the user
/// proved. The clients are relying parties' API keys (`client_id` is the key's id,
/// `client_secret` the key).
public final class CIBAService: Sendable {
    public typealias Storage = CIBAStore & NotificationStore & UserStore & DeviceStore & AtomicStore

    let store: any Storage
    let notifications: NotificationService
    let apiKeys: APIKeyService
    let digester: any SecretDigester
    let random: any RandomSource
    let clock: any Clock
    let signer: any TokenSigner
    public let issuer: String
    /// Seconds between polls a new request starts with.
    public let interval: Int
    /// The level when the client names none it wants.
    public static let defaultLevel: AuthLevel = .deviceSignature
    /// Lifetime of the tokens issued.
    public static let tokenLifetime = 300

    public init(store: any Storage, notifications: NotificationService, apiKeys: APIKeyService, digester: any SecretDigester,
                random: any RandomSource, clock: any Clock, signer: any TokenSigner, issuer: String, interval: Int = 5) {
        self.store = store
        self.notifications = notifications
        self.apiKeys = apiKeys
        self.digester = digester
        self.random = random
        self.clock = clock
        self.signer = signer
        self.issuer = issuer
        self.interval = interval
    }

    /// The levels a client can ask for, as `acr` values (discovery's `acr_values_supported`).
    public var supportedACRValues: [String] {
        var levels: [AuthLevel] = [.none, .password, .deviceSignature]
        if notifications.idv != nil { levels.append(.serverBiometric) }
        return levels.map(\.acr)
    }

    // MARK: Clients

    /// The client of a request: HTTP Basic (`client_secret_basic`) or the form's `client_id`
    /// and `client_secret` (`client_secret_post`), never both.
    public func authenticateClient(_ credentials: ClientCredentials) throws -> APIKey {
        let basic = credentials.basic
        let postID = credentials.clientID
        let postSecret = credentials.clientSecret
        guard let (id, secret) = basic ?? postSecret.map({ (postID ?? "", $0) }), basic == nil || postSecret == nil else {
            throw OAuthError(.invalidClient, "authenticate with HTTP Basic or client_id and client_secret, once")
        }
        if let postID, postID != id { throw OAuthError(.invalidClient, "client_id does not match the credentials") }
        let key: APIKey
        do {
            key = try apiKeys.authenticate(secret: secret, requiring: .rp)
        } catch {
            throw OAuthError(.invalidClient, "client authentication failed")
        }
        guard key.id == id else { throw OAuthError(.invalidClient, "client authentication failed") }
        return key
    }

    /// Registers how a client gets its tokens, and returns what is kept; `ping` needs a
    /// notification endpoint. An endpoint is checked like a callback URL (length, scheme,
    /// addresses) in every mode, so a malformed one is refused, not quietly dropped; poll mode
    /// pings no one and keeps none.
    @discardableResult
    public func register(_ given: CIBAClient, actor: String) throws -> CIBAClient {
        if given.mode == .ping, given.notificationEndpoint == nil {
            throw StepUpError.invalid("backchannel_client_notification_endpoint", "is required in ping mode")
        }
        if let endpoint = given.notificationEndpoint { try notifications.callbacks.validate(endpoint) }
        var client = given
        if client.mode == .poll { client.notificationEndpoint = nil }
        try notifications.store.atomically {
            try store.saveCIBAClient(client, at: clock.now())
            try notifications.audit.record(.cibaClientRegistered, userID: nil, details: [
                AuditActor.detail: actor, "client_id": client.clientID, "mode": client.mode.rawValue,
            ])
        }
        return client
    }

    public func client(id: String) throws -> CIBAClient {
        try store.cibaClient(id: id) ?? CIBAClient(clientID: id, mode: .poll, notificationEndpoint: nil)
    }

    // MARK: The backchannel authentication endpoint

    public func authenticate(client key: APIKey, request form: BackchannelRequest) throws -> BackchannelTicket {
        let scope = form.scope ?? ""
        guard scope.split(separator: " ").contains("openid") else { throw OAuthError(.invalidScope, "scope must include openid") }
        if form.idTokenHint != nil || form.loginHintToken != nil {
            throw OAuthError(.invalidRequest, "only login_hint (the user id) names the user here")
        }
        guard let userID = form.loginHint, !userID.isEmpty else { throw OAuthError(.invalidRequest, "login_hint (the user id) is required") }
        if form.userCode != nil { throw OAuthError(.invalidRequest, "user_code is not supported") }
        let level = try requestedLevel(form.acrValues)
        let binding = form.bindingMessage
        if let binding, binding.isEmpty || binding.count > 64 || binding.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw OAuthError(.invalidBindingMessage, "binding_message must be 1 to 64 characters without control characters")
        }
        var lifetime = TimeInterval(notifications.policy.defaultLifetime)
        if let requested = form.requestedExpiry {
            guard let seconds = Int(requested), (10...Int(notifications.policy.maximumLifetime)).contains(seconds) else {
                throw OAuthError(.invalidRequest, "requested_expiry must be 10 to \(Int(notifications.policy.maximumLifetime)) seconds")
            }
            lifetime = TimeInterval(seconds)
        }
        let details = try authorizationDetails(form.authorizationDetails)
        let client = try client(id: key.id)
        let authReqID = "car_" + Data(random.bytes(count: 32)).base64URLEncodedString
        var ping: CIBAPing?
        if client.mode == .ping {
            guard let token = form.clientNotificationToken, !token.isEmpty, token.utf8.count <= 1024, let endpoint = client.notificationEndpoint else {
                throw OAuthError(.invalidRequest, "client_notification_token is required in ping mode")
            }
            ping = CIBAPing(endpoint: endpoint, clientNotificationToken: token, authReqID: authReqID)
        }
        let draft = NotificationDraft(
            userID: userID, subject: binding.map { "Sign-in: \($0)" } ?? "Sign-in request",
            message: "\(key.label) asks you to confirm that it is you\(binding.map { " (\($0))" } ?? "").",
            actions: [NotificationAction(label: "Approve", action: "approve", authLevel: level),
                      NotificationAction(label: "Deny", action: "deny", authLevel: .none)],
            details: details, lifetime: lifetime, ping: ping)
        let digest = Hex.encode(digester.digest(authReqID))
        try store.atomically {
            let notification: StepUpNotification
            do {
                notification = try notifications.create(draft, apiKeyID: key.id)
            } catch IdentityError.userNotFound, IdentityError.invalidInput {
                throw OAuthError(.unknownUserID, "no such user")
            } catch let error as StepUpError where error.kind == .throttled {
                throw OAuthError(.accessDenied, error.message)
            }
            try store.createCIBARequest(CIBARequest(digest: digest, notificationID: notification.id, clientID: key.id, scope: scope,
                                                    interval: interval, createdAt: clock.now()))
        }
        return BackchannelTicket(authReqID: authReqID, expiresIn: Int(lifetime), interval: interval)
    }

    /// The first `acr_values` entry this server knows (they come in order of preference).
    private func requestedLevel(_ acrValues: String?) throws -> AuthLevel {
        guard let acrValues else { return Self.defaultLevel }
        let supported = Set(supportedACRValues)
        guard let chosen = acrValues.split(separator: " ").map(String.init).first(where: supported.contains),
              let level = AuthLevel(acr: chosen) else {
            throw OAuthError(.invalidRequest, "acr_values names no level this server supports: \(supportedACRValues.joined(separator: " "))")
        }
        return level
    }

    /// RFC 9396 `authorization_details`: a JSON array whose first entry is the transaction.
    private func authorizationDetails(_ text: String?) throws -> TransactionDetails? {
        guard let text else { return nil }
        guard let entries = try? JSONDecoder().decode([TransactionDetails].self, from: Data(text.utf8)), let first = entries.first,
              entries.count == 1 else {
            throw OAuthError(.invalidRequest, "authorization_details must be a JSON array of one object with type (and amount, currency, payee)")
        }
        do {
            try NotificationRules.check(first)
        } catch let error as StepUpError {
            throw OAuthError(.invalidRequest, error.message)
        }
        return first
    }

    // MARK: Revocation (RFC 7009)

    /// Revokes the CIBA access token the client holds; an unknown token or another client's is
    /// ignored (the answer is the same).
    public func revoke(client key: APIKey, token: String, verifiedBy oidc: OIDCService) throws {
        let now = clock.now()
        guard let claims = try oidc.liveAccessToken(token, now: now), claims.clientID == key.id,
              let sid = claims.sid, sid.hasPrefix(CIBARequest.sessionPrefix) else { return }
        try store.revokeCIBATokens(digest: String(sid.dropFirst(CIBARequest.sessionPrefix.count)), at: now)
    }

    // MARK: The token endpoint

    /// The `urn:openid:params:grant-type:ciba` grant. An approval that no longer stands (the
    /// request, the user or the answering device revoked since, the password changed) yields
    /// no tokens (`CIBARequest.approvalStands`).
    public func token(client key: APIKey, authReqID: String) throws -> IssuedTokens {
        let digest = Hex.encode(digester.digest(authReqID))
        guard let request = try store.cibaRequest(digest: digest), request.clientID == key.id else {
            throw OAuthError(.invalidGrant, "unknown auth_req_id")
        }
        guard !request.tokensIssued else { throw OAuthError(.invalidGrant, "the tokens of this auth_req_id were already issued") }
        let (notification, _) = try notifications.result(id: request.notificationID)
        switch notification.status {
        case .pending:
            guard try store.recordCIBAPoll(digest: digest, now: clock.now()) else {
                throw OAuthError(.slowDown, "poll at most every \(request.interval + 5) seconds")
            }
            throw OAuthError(.authorizationPending, "the user has not answered yet")
        case .expired:
            throw OAuthError(.expiredToken, "the request expired unanswered")
        case .answered where notification.chosenAction == "approve":
            guard try request.approvalStands(in: store, now: clock.now()) else {
                throw OAuthError(.invalidGrant, "the approval was revoked: the user, the answering device or the request no longer stands")
            }
            guard try store.markCIBATokensIssued(digest: digest) else {
                throw OAuthError(.invalidGrant, "the tokens of this auth_req_id were already issued")
            }
            return try tokens(for: notification, request: request)
        default:
            throw OAuthError(.accessDenied, "the user denied the request")
        }
    }

    private func tokens(for notification: StepUpNotification, request: CIBARequest) throws -> IssuedTokens {
        let now = clock.now()
        let issuedAt = Int(now.timeIntervalSince1970)
        let level = notification.achievedLevel ?? .none
        var idClaims: [String: Any] = [
            "iss": issuer, "sub": notification.userID, "aud": request.clientID, "iat": issuedAt, "exp": issuedAt + Self.tokenLifetime,
            "acr": level.acr, "amr": Assurance.of(level).amr, "jti": random.hexID(bytes: 16),
        ]
        if let answeredAt = notification.answeredAt { idClaims["auth_time"] = Int(answeredAt.timeIntervalSince1970) }
        let accessClaims: [String: Any] = [
            "iss": issuer, "sub": notification.userID, "aud": issuer, "client_id": request.clientID, "scope": request.scope,
            "iat": issuedAt, "exp": issuedAt + Self.tokenLifetime, "jti": random.hexID(bytes: 16), "acr": level.acr,
            // The request the token came from: a revocation of it or of the user ends the token.
            "sid": request.tokenSessionID,
        ]
        let idToken = try signer.sign(payload: try JSONSerialization.data(withJSONObject: idClaims, options: [.sortedKeys, .withoutEscapingSlashes]), type: "JWT", now: now)
        let accessToken = try signer.sign(payload: try JSONSerialization.data(withJSONObject: accessClaims, options: [.sortedKeys, .withoutEscapingSlashes]),
                                          type: "at+jwt", now: now)
        return IssuedTokens(accessToken: accessToken, expiresIn: Self.tokenLifetime, idToken: idToken, scope: request.scope)
    }
}
