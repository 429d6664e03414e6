/// Every operation of the API, in one table. `openapi.yaml` documents the same operations with
/// the same request and answer fields; a test holds the two together.
public enum Endpoints {
    // Operations (anyone).
    public static let health = Endpoint<NoContent, HealthStatus>(.get, "/healthz", .anyone)
    public static let readiness = Endpoint<NoContent, ReadinessStatus>(.get, "/readyz", .anyone)
    public static let metrics = Endpoint<NoContent, OpaqueBody>(.get, "/metrics", .anyone)
    /// The public keys of what this server signs (a JWK set).
    public static let jwks = Endpoint<NoContent, OpaqueBody>(.get, "/.well-known/jwks.json", .anyone)

    // OpenID Shared Signals (SSF 1.0): the transmitter's metadata, each API key's stream.
    public static let ssfConfiguration = Endpoint<NoContent, TransmitterConfiguration>(.get, "/.well-known/ssf-configuration", .anyone)
    public static let createStream = Endpoint<StreamConfigurationRequest, StreamConfiguration>(.post, "/ssf/streams", .apiKey(.rp), status: 201)
    public static let readStreams = Endpoint<NoContent, OpaqueBody>(.get, "/ssf/streams", .apiKey(.rp))
    public static let updateStream = Endpoint<StreamConfigurationRequest, StreamConfiguration>(.patch, "/ssf/streams", .apiKey(.rp))
    public static let deleteStream = Endpoint<NoContent, NoContent>(.delete, "/ssf/streams", .apiKey(.rp))
    public static let verifyStream = Endpoint<StreamVerificationRequest, NoContent>(.post, "/ssf/verify", .apiKey(.rp))

    // API keys (admin scope).
    public static let createAPIKey = Endpoint<CreateAPIKeyRequest, APIKeyInfo>(.post, "/v1/admin/api-keys", .apiKey(.admin), status: 201)
    public static let apiKeys = Endpoint<NoContent, APIKeyList>(.get, "/v1/admin/api-keys", .apiKey(.admin))
    public static let revokeAPIKey = Endpoint<NoContent, NoContent>(.delete, "/v1/admin/api-keys/{id}", .apiKey(.admin))

    // Users and their devices (the relying party).
    public static let createUser = Endpoint<CreateUserRequest, CreatedUser>(.post, "/v1/users", .apiKey(.rp), status: 201)
    /// Query: `limit` (default 100), `after` (the last user id of the previous page).
    public static let users = Endpoint<NoContent, UserList>(.get, "/v1/users", .apiKey(.rp))
    public static let user = Endpoint<NoContent, UserInfo>(.get, "/v1/users/{id}", .apiKey(.rp))
    public static let deleteUser = Endpoint<NoContent, NoContent>(.delete, "/v1/users/{id}", .apiKey(.rp))
    public static let disableUser = Endpoint<NoContent, UserInfo>(.post, "/v1/users/{id}/disable", .apiKey(.rp))
    public static let enableUser = Endpoint<NoContent, UserInfo>(.post, "/v1/users/{id}/enable", .apiKey(.rp))
    public static let unlockUser = Endpoint<NoContent, UserInfo>(.post, "/v1/users/{id}/unlock", .apiKey(.rp))
    public static let expirePassword = Endpoint<NoContent, UserInfo>(.post, "/v1/users/{id}/expire-password", .apiKey(.rp))
    public static let issueActivationCode = Endpoint<NoContent, ActivationCodeInfo>(.post, "/v1/users/{id}/activation-code", .apiKey(.rp), status: 201)
    public static let userDevices = Endpoint<NoContent, DeviceList>(.get, "/v1/users/{id}/devices", .apiKey(.rp))
    public static let revokeDevice = Endpoint<NoContent, NoContent>(.delete, "/v1/users/{id}/devices/{device}", .apiKey(.rp))
    /// A one-time code that binds a new device to the (active) user outside any login.
    public static let resetUser = Endpoint<NoContent, ActivationCodeInfo>(.post, "/v1/users/{id}/reset", .apiKey(.rp))
    public static let issueRegistrationCode = Endpoint<NoContent, RegistrationCodeInfo>(.post, "/v1/users/{id}/registration-code", .apiKey(.rp), status: 201)
    public static let grantEnrollment = Endpoint<NoContent, EnrollmentGrantResponse>(.post, "/v1/users/{id}/enrollment-grant", .apiKey(.rp), status: 201)
    /// The user's standard OpenID claims, which UserInfo releases by scope; PUT replaces them all.
    public static let userClaims = Endpoint<NoContent, UserClaims>(.get, "/v1/users/{id}/claims", .apiKey(.rp))
    public static let setUserClaims = Endpoint<UserClaims, UserClaims>(.put, "/v1/users/{id}/claims", .apiKey(.rp))

    // The app: activation, login, password, sessions.
    public static let activate = Endpoint<ActivateRequest, AuthenticationResult>(.post, "/v1/activate", .anyone, status: 201)
    /// A new device for an active user: the password or a registration code.
    public static let registerDevice = Endpoint<RegisterDeviceRequest, AuthenticationResult>(.post, "/v1/devices/register", .anyone, status: 201)
    public static let requestDeviceApproval = Endpoint<DeviceApprovalRequestBody, DeviceApprovalTicketInfo>(
        .post, "/v1/devices/approval-requests", .anyone, status: 201)
    public static let claimDeviceApproval = Endpoint<DeviceApprovalClaim, AuthenticationResult>(
        .post, "/v1/devices/approval-requests/claim", .anyone)
    public static let loginChallenge = Endpoint<LoginChallengeRequest, LoginChallenge>(.post, "/v1/login/challenge", .anyone)
    public static let login = Endpoint<LoginRequest, AuthenticationResult>(.post, "/v1/login", .anyone)
    public static let changePassword = Endpoint<ChangePasswordRequest, AuthenticationResult>(.post, "/v1/password/change", .sessionOrChangeToken)
    public static let logout = Endpoint<NoContent, NoContent>(.post, "/v1/logout", .session)
    public static let sessions = Endpoint<NoContent, SessionList>(.get, "/v1/sessions", .session)
    public static let revokeSession = Endpoint<NoContent, NoContent>(.delete, "/v1/sessions/{id}", .session)
    /// The signed-in user's own devices, and unbinding one (the password again).
    public static let myDevices = Endpoint<NoContent, DeviceList>(.get, "/v1/devices", .session)
    public static let revokeMyDevice = Endpoint<DeviceRevocationRequest, AuthenticationResult>(.post, "/v1/devices/{id}/revoke", .session)

    // The app: server biometrics.
    public static let templateStatus = Endpoint<NoContent, TemplateStatusResponse>(.get, "/v1/idv/template", .session)
    public static let optOut = Endpoint<NoContent, TemplateStatusResponse>(.delete, "/v1/idv/template", .session)
    public static let initiateIDV = Endpoint<IDVInitiateRequest, IDVTransactionInfo>(.post, "/v1/idv/transactions", .session, status: 201)
    public static let confirmIDV = Endpoint<NoContent, IDVConfirmation>(.post, "/v1/idv/transactions/{id}/confirm", .session)
    public static let cancelIDV = Endpoint<NoContent, IDVResultResponse>(.post, "/v1/idv/transactions/{id}/cancel", .session)
    public static let submitFrames = Endpoint<IDVFramesRequest, IDVResultResponse>(.post, "/v1/idv/transactions/{id}/frames", .session, uploads: true)
    public static let submitDocument = Endpoint<IDVDocumentRequest, IDVResultResponse>(.post, "/v1/idv/transactions/{id}/document", .session, uploads: true)

    // The relying party's reads of IDV results.
    public static let verdict = Endpoint<NoContent, IDVVerdictResponse>(.get, "/v1/idv/transactions/{id}/verdict", .apiKey(.rp))
    /// `side`: front or back. The answer is the image as uploaded.
    public static let documentImage = Endpoint<NoContent, OpaqueBody>(.get, "/v1/idv/transactions/{id}/documents/{side}", .apiKey(.rp))

    // Step-up notifications: the relying party sends and reads; the user's app lists and answers.
    public static let createNotification = Endpoint<CreateNotificationRequest, CreatedNotification>(.post, "/v1/notifications", .apiKey(.rp), status: 201)
    public static let notificationResult = Endpoint<NoContent, NotificationResult>(.get, "/v1/notifications/{id}/result", .apiKey(.rp))
    public static let webhookSecret = Endpoint<NoContent, WebhookSecretInfo>(.get, "/v1/webhooks/secret", .apiKey(.rp))
    public static let notifications = Endpoint<NoContent, NotificationList>(.get, "/v1/notifications", .session)
    public static let notificationHistory = Endpoint<NoContent, NotificationList>(.get, "/v1/notifications/history", .session)
    public static let updateNotification = Endpoint<UpdateNotificationRequest, UpdateNotificationResult>(.post, "/v1/notifications/{id}/actions", .session)

    // OpenID Connect: discovery and CIBA (the clients are relying parties' API keys).
    public static let openIDConfiguration = Endpoint<NoContent, OpaqueBody>(.get, "/.well-known/openid-configuration", .anyone)
    /// Form body; the client authenticates with HTTP Basic or `client_id` and `client_secret`.
    public static let backchannelAuthentication = Endpoint<FormBody, BackchannelAuthenticationResponse>(.post, "/oauth2/bc-authorize", .anyone)
    /// Form body; errors are OAuth errors (`OAuthErrorResponse`), not the API's envelope.
    public static let token = Endpoint<FormBody, TokenResponse>(.post, "/oauth2/token", .anyone)
    public static let registerCIBAClient = Endpoint<CIBAClientRegistration, CIBAClientRegistration>(.post, "/v1/ciba/client", .apiKey(.rp))

    // OpenID Connect provider: the code flow with PKCE, and its clients (admin scope).
    /// Query: the authorization request. Answers a redirect to the client (errors once the client
    /// and redirect URI are known good) or a page; never JSON.
    public static let authorize = Endpoint<NoContent, OpaqueBody>(.get, "/oauth2/authorize", .anyone)
    /// Form body: the authorization request as a form (OpenID Connect Core §3.1.2.1); a valid one
    /// is sent on to `authorize` (303), an invalid one answered as `authorize` answers it.
    public static let authorizeByPost = Endpoint<FormBody, OpaqueBody>(.post, "/oauth2/authorize", .anyone, status: 303)
    /// RP-Initiated Logout 1.0: ends the grant an `id_token_hint` names, then sends the browser
    /// to a registered `post_logout_redirect_uri` (302, with `state`) or shows a page (200).
    public static let endSession = Endpoint<NoContent, OpaqueBody>(.get, "/oauth2/logout", .anyone)
    public static let endSessionByPost = Endpoint<FormBody, OpaqueBody>(.post, "/oauth2/logout", .anyone)
    /// `Authorization: Bearer` an access token.
    public static let userInfo = Endpoint<NoContent, UserInfoResponse>(.get, "/oauth2/userinfo", .anyone)
    /// OpenID Connect Core §5.3: the UserInfo endpoint answers POST as well.
    public static let userInfoPost = Endpoint<NoContent, UserInfoResponse>(.post, "/oauth2/userinfo", .anyone)
    /// Form body (`token`, `token_type_hint`); RFC 7009: 200 for unknown tokens too.
    public static let revokeToken = Endpoint<FormBody, OpaqueBody>(.post, "/oauth2/revoke", .anyone)
    /// Form body (`token`); RFC 7662, confidential clients only.
    public static let introspectToken = Endpoint<FormBody, OpaqueBody>(.post, "/oauth2/introspect", .anyone)
    /// A bound device starts a sign-in: the authorization request and its device id; the
    /// answer is the challenge to sign.
    public static let beginDeviceSignIn = Endpoint<DeviceSignInRequest, DeviceSignInChallengeResponse>(.post, "/v1/oidc/device-sign-in", .anyone)
    /// The device's WebAuthn assertion over the challenge; the answer is the authorization code.
    public static let completeDeviceSignIn = Endpoint<WebAuthnAssertionBody, AuthorizationCodeResponse>(
        .post, "/v1/oidc/device-sign-in/{id}/assertion", .anyone)
    /// The signed-in user registers a passkey (a browser or platform authenticator): the password
    /// again for the options, then the attestation (`none` or `packed` self-attestation); the passkey then signs in
    /// through the device sign-in as a bound device does (its device id `pk_` + credential id).
    public static let beginPasskeyRegistration = Endpoint<PasskeyRegistrationStart, PasskeyRegistrationOptions>(.post, "/v1/passkeys/registration", .session,
                                                                                                           status: 201)
    public static let completePasskeyRegistration = Endpoint<PasskeyRegistrationRequest, DeviceInfo>(
        .post, "/v1/passkeys/registration/{id}", .session, status: 201)
    /// A passkey (or a bound device answering in WebAuthn's form) signs in to Custos itself,
    /// without a user id: the challenge, then the assertion and the password where asked; the
    /// answer is the login's.
    public static let beginPasskeyLogin = Endpoint<NoContent, PasskeyLoginChallengeResponse>(.post, "/v1/login/passkey/challenge", .anyone)
    public static let passkeyLogin = Endpoint<PasskeyLoginRequest, AuthenticationResult>(.post, "/v1/login/passkey", .anyone)
    public static let createOIDCClient = Endpoint<CreateOIDCClientRequest, OIDCClientInfo>(.post, "/v1/admin/oidc/clients", .apiKey(.admin), status: 201)
    public static let oidcClients = Endpoint<NoContent, OIDCClientList>(.get, "/v1/admin/oidc/clients", .apiKey(.admin))
    public static let oidcClient = Endpoint<NoContent, OIDCClientInfo>(.get, "/v1/admin/oidc/clients/{id}", .apiKey(.admin))
    public static let deleteOIDCClient = Endpoint<NoContent, NoContent>(.delete, "/v1/admin/oidc/clients/{id}", .apiKey(.admin))

    // Operators: the audit trail (admin scope).
    /// Query: `user`, `transaction`, `after` (a sequence), `limit` (1-1000, default 100); oldest first.
    public static let auditEvents = Endpoint<NoContent, AuditEventList>(.get, "/v1/admin/audit", .apiKey(.admin))
    public static let verifyAudit = Endpoint<NoContent, AuditVerificationInfo>(.post, "/v1/admin/audit/verify", .apiKey(.admin))

    // The web app (static files; `/` redirects to `/app/`).
    public static let webRoot = Endpoint<NoContent, OpaqueBody>(.get, "/", .anyone, status: 302)
    public static let webApp = Endpoint<NoContent, OpaqueBody>(.get, "/app/", .anyone)
    public static let webAsset = Endpoint<NoContent, OpaqueBody>(.get, "/app/{file}", .anyone)

    /// Every endpoint with its name here (the web app's contract.js names them so).
    public static let named: [(name: String, endpoint: AnyEndpoint)] = [
        ("health", health.erased), ("readiness", readiness.erased), ("metrics", metrics.erased), ("jwks", jwks.erased),
        ("ssfConfiguration", ssfConfiguration.erased), ("createStream", createStream.erased), ("readStreams", readStreams.erased),
        ("updateStream", updateStream.erased), ("deleteStream", deleteStream.erased), ("verifyStream", verifyStream.erased),
        ("createAPIKey", createAPIKey.erased), ("apiKeys", apiKeys.erased), ("revokeAPIKey", revokeAPIKey.erased),
        ("createUser", createUser.erased), ("users", users.erased), ("user", user.erased), ("deleteUser", deleteUser.erased),
        ("disableUser", disableUser.erased), ("enableUser", enableUser.erased), ("unlockUser", unlockUser.erased),
        ("expirePassword", expirePassword.erased),
        ("issueActivationCode", issueActivationCode.erased), ("resetUser", resetUser.erased), ("userDevices", userDevices.erased),
        ("revokeDevice", revokeDevice.erased), ("grantEnrollment", grantEnrollment.erased),
        ("userClaims", userClaims.erased), ("setUserClaims", setUserClaims.erased),
        ("issueRegistrationCode", issueRegistrationCode.erased), ("registerDevice", registerDevice.erased),
        ("requestDeviceApproval", requestDeviceApproval.erased), ("claimDeviceApproval", claimDeviceApproval.erased),
        ("activate", activate.erased), ("loginChallenge", loginChallenge.erased), ("login", login.erased),
        ("changePassword", changePassword.erased), ("logout", logout.erased), ("sessions", sessions.erased),
        ("revokeSession", revokeSession.erased), ("myDevices", myDevices.erased), ("revokeMyDevice", revokeMyDevice.erased),
        ("templateStatus", templateStatus.erased), ("optOut", optOut.erased), ("initiateIDV", initiateIDV.erased),
        ("confirmIDV", confirmIDV.erased), ("cancelIDV", cancelIDV.erased), ("submitFrames", submitFrames.erased),
        ("submitDocument", submitDocument.erased), ("verdict", verdict.erased), ("documentImage", documentImage.erased),
        ("createNotification", createNotification.erased), ("notificationResult", notificationResult.erased),
        ("webhookSecret", webhookSecret.erased), ("notifications", notifications.erased),
        ("notificationHistory", notificationHistory.erased), ("updateNotification", updateNotification.erased),
        ("openIDConfiguration", openIDConfiguration.erased), ("backchannelAuthentication", backchannelAuthentication.erased),
        ("token", token.erased), ("registerCIBAClient", registerCIBAClient.erased), ("authorize", authorize.erased), ("authorizeByPost", authorizeByPost.erased),
        ("endSession", endSession.erased), ("endSessionByPost", endSessionByPost.erased),
        ("userInfo", userInfo.erased), ("userInfoPost", userInfoPost.erased), ("revokeToken", revokeToken.erased),
        ("introspectToken", introspectToken.erased), ("beginDeviceSignIn", beginDeviceSignIn.erased),
        ("completeDeviceSignIn", completeDeviceSignIn.erased), ("beginPasskeyRegistration", beginPasskeyRegistration.erased),
        ("completePasskeyRegistration", completePasskeyRegistration.erased), ("beginPasskeyLogin", beginPasskeyLogin.erased),
        ("passkeyLogin", passkeyLogin.erased), ("createOIDCClient", createOIDCClient.erased), ("oidcClients", oidcClients.erased),
        ("oidcClient", oidcClient.erased), ("deleteOIDCClient", deleteOIDCClient.erased), ("auditEvents", auditEvents.erased),
        ("verifyAudit", verifyAudit.erased), ("webRoot", webRoot.erased), ("webApp", webApp.erased), ("webAsset", webAsset.erased),
    ]

    public static let all: [AnyEndpoint] = named.map(\.endpoint)
}
