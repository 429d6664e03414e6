import CustosAPI
import CustosCore
import CustosHTTP
import CustosWebApp
import Foundation

/// The OpenID Connect provider: the authorization endpoint, a bound device's sign-in, UserInfo,
/// revocation, introspection, and the clients' registration (admin scope). The token endpoint's
/// grants are served with CIBA's in `OpenIDRoutes`.
enum OIDCRoutes {
    static func register(on routes: inout EndpointRouter, _ groups: AccessGroups, oidc service: OIDCService?, ciba: CIBAService?,
                         identity: IdentityService, web: WebApp?) {
        @Sendable func oidc() throws -> OIDCService {
            guard let service else { throw HTTPError(status: 404, code: "not_found", message: "This server runs no OpenID provider.") }
            return service
        }
        routes.respond(Endpoints.authorize, groups.signIn) { context, _ in
            try authorize(try oidc(), query: context.request.query, web: web)
        }
        routes.respond(Endpoints.authorizeByPost, groups.signIn) { _, form in
            try authorizeByPost(try oidc(), form: form)
        }
        routes.respond(Endpoints.endSession, groups.signIn) { context, _ in
            try endSession(try oidc(), context.request.query)
        }
        routes.respond(Endpoints.endSessionByPost, groups.signIn) { _, form in
            try endSession(try oidc(), form.fields)
        }
        routes.on(Endpoints.beginDeviceSignIn, groups.signIn) { _, body in
            let challenge: DeviceSignInChallenge
            do {
                challenge = try oidc().beginDeviceSignIn(body.parameters, deviceID: body.deviceID)
            } catch let error as AuthorizationRequestError {
                throw error.error
            }
            return DeviceSignInChallengeResponse(authorizationID: challenge.authorizationID, challenge: challenge.challenge.base64URLEncodedString,
                                                 rpID: challenge.rpID, origin: challenge.origin, userVerification: challenge.userVerification,
                                                 clientName: challenge.clientName, expiresAt: challenge.expiresAt)
        }
        routes.on(Endpoints.completeDeviceSignIn, groups.signIn) { context, body in
            let issued = try oidc().completeDeviceSignIn(
                authorizationID: try context.parameter("id"),
                assertion: try assertion(body.credentialID, body.authenticatorData, body.clientDataJSON, body.signature),
                client: context.request.remoteAddress?.limitKey)
            return AuthorizationCodeResponse(code: issued.code, state: issued.state, redirectURI: issued.redirectURI, iss: issued.issuer,
                                             location: issued.location,
                                             responseMode: issued.responseMode == .formPost ? issued.responseMode.rawValue : nil)
        }
        for endpoint in [Endpoints.userInfo, Endpoints.userInfoPost] {
            routes.respond(endpoint, groups.anyone) { context, _ in try userInfo(try oidc(), context.request) }
        }
        routes.respond(Endpoints.revokeToken, groups.signIn) { context, form in
            let oidc = try oidc()
            let credentials = try OAuthWireMapping.credentials(context.request, form)
            guard let token = form["token"], !token.isEmpty else { throw OAuthError(.invalidRequest, "token is required") }
            // A CIBA client is a relying party's API key (its id is no OpenID client's `oc_…`).
            if let ciba, let id = credentials.basicID ?? credentials.clientID, !id.hasPrefix(OIDCClient.idPrefix) {
                try ciba.revoke(client: try ciba.authenticateClient(credentials), token: token, verifiedBy: oidc)
                return OpenIDRoutes.noStore(Response(status: 200))
            }
            try oidc.revoke(client: try oidc.authenticateClient(credentials), token: token)
            return OpenIDRoutes.noStore(Response(status: 200))
        }
        routes.respond(Endpoints.introspectToken, groups.signIn) { context, form in
            let oidc = try oidc()
            let client = try oidc.authenticateClient(try OAuthWireMapping.credentials(context.request, form))
            guard let token = form["token"], !token.isEmpty else { throw OAuthError(.invalidRequest, "token is required") }
            return OpenIDRoutes.noStore(.json(raw: try OAuthWireMapping.introspection(try oidc.introspect(client: client, token: token))))
        }
        routes.on(Endpoints.createOIDCClient, groups.admin) { context, body in
            guard let kind = OIDCClient.Kind(rawValue: body.clientType) else {
                throw OIDCError.invalid("client_type", "must be public or confidential")
            }
            let algorithm = body.idTokenSignedResponseAlg ?? SigningAlgorithm.es256.rawValue
            guard let idTokenAlgorithm = SigningAlgorithm(rawValue: algorithm) else {
                throw OIDCError.invalid("id_token_signed_response_alg", "must be ES256 or RS256")
            }
            let draft = OIDCClientDraft(name: body.name, kind: kind, redirectURIs: body.redirectURIs,
                                        scopes: body.scopes ?? OIDCService.supportedScopes,
                                        encryptionJWK: try body.encryptionJWK.map(jwkJSON), assertionJWK: try body.assertionJWK.map(jwkJSON),
                                        idTokenAlgorithm: idTokenAlgorithm, postLogoutRedirectURIs: body.postLogoutRedirectURIs ?? [])
            let (client, secret) = try oidc().createClient(draft, actor: context.caller.id)
            var info = try clientInfo(client)
            info.clientSecret = secret
            return info
        }
        routes.on(Endpoints.oidcClients, groups.admin) { _, _ in
            OIDCClientList(clients: try oidc().clients().map(clientInfo))
        }
        routes.on(Endpoints.oidcClient, groups.admin) { context, _ in
            try clientInfo(try oidc().client(id: try context.parameter("id")))
        }
        routes.on(Endpoints.deleteOIDCClient, groups.admin) { context, _ in
            try oidc().deleteClient(id: try context.parameter("id"), actor: context.caller.id)
            return NoContent()
        }
    }

    /// The UserInfo answer for the request's bearer access token (GET or POST).
    static func userInfo(_ oidc: OIDCService, _ request: Request) throws -> Response {
        do {
            guard let token = AccessGroups.bearer(request) else {
                throw OAuthError(.invalidToken, "send the access token as Authorization: Bearer")
            }
            let (subject, claims) = try oidc.userInfo(accessToken: token)
            return OpenIDRoutes.noStore(try .wire(UserInfoResponse(sub: subject, claims: claims)))
        } catch let error as OAuthError {
            // RFC 6750 §3: the challenge says why (the body is the OAuth error ErrorMapping writes).
            var response = Response.error(ErrorMapping.httpError(for: error) ?? HTTPError(status: error.status, code: error.code.rawValue,
                                                                                           message: error.description))
            response.headers.set("WWW-Authenticate", #"Bearer error="\#(error.code.rawValue)""#)
            return response
        }
    }

    /// `GET /oauth2/authorize`: errors go back to the client's redirect URI once the client and
    /// the URI are known good, and to the user agent otherwise; a valid request gets the page
    /// where the user signs in with this browser's device key or a passkey (the web app's), or
    /// approves it on their bound device.
    static func authorize(_ oidc: OIDCService, query: [String: String], web: WebApp?) throws -> Response {
        let request: AuthorizationRequest
        switch try validated(oidc, query) {
        case .refused(let answer): return answer
        case .valid(let valid): request = valid
        }
        if request.prompt.contains("none") {
            // No browser session is kept here: a silent sign-in cannot be met.
            return AuthorizationAnswer.send(to: request.redirectURI, request.responseMode, [
                "error": OAuthError.Code.loginRequired.rawValue, "error_description": "sign in on your bound device",
                "state": request.state, "iss": oidc.policy.issuer,
            ])
        }
        let client = try oidc.client(id: request.clientID)
        let formAction = request.responseMode == .formPost ? AuthorizationRequest.formOrigin(request.redirectURI) : nil
        if let page = web?.authorizePage(clientName: client.name, issuer: oidc.policy.issuer, scope: request.scope,
                                         loginHint: request.loginHint, postingTo: formAction) { return page }
        var response = Response.text(AuthorizePage.html(clientName: client.name), contentType: "text/html; charset=utf-8")
        response.headers.set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
        response.headers.set("X-Content-Type-Options", "nosniff")
        response.headers.set("Referrer-Policy", "no-referrer")
        return OpenIDRoutes.noStore(response)
    }

    /// RP-Initiated Logout: to the registered address the request named, or a page that says the
    /// user is signed out. A refusal is the browser's page (400), never a redirect.
    static func endSession(_ oidc: OIDCService, _ parameters: [String: String]) throws -> Response {
        let ended = try oidc.endSession(parameters)
        if let redirect = ended.redirect {
            var response = Response(status: 302)
            response.headers.set("Location", redirect)
            return OpenIDRoutes.noStore(response)
        }
        // One text whether or not a grant was open: the answer tells a token's holder nothing.
        let what = "You are signed out\(ended.clientName.map { " of \($0)" } ?? ""). This server keeps no browser session of its own."
        var response = Response.text(SignedOutPage.html(what), contentType: "text/html; charset=utf-8")
        response.headers.set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; form-action 'none'")
        response.headers.set("X-Content-Type-Options", "nosniff")
        response.headers.set("Referrer-Policy", "no-referrer")
        return OpenIDRoutes.noStore(response)
    }

    /// `POST /oauth2/authorize`: a request refused is answered as `GET` answers it; a valid one
    /// is sent on to `GET` with the same parameters (303), whose page reads them from its address.
    static func authorizeByPost(_ oidc: OIDCService, form: FormBody) throws -> Response {
        let request: AuthorizationRequest
        switch try validated(oidc, form.fields) {
        case .refused(let answer): return answer
        case .valid(let valid): request = valid
        }
        let query = String(decoding: form.encoded, as: UTF8.self)
        // What the GET would refuse as an address (a control character, a URL longer than proxies
        // and this server take) is the client's error, answered at its redirect URI.
        let control = form.fields.contains { name, value in
            (name + value).unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
        }
        guard !control, query.utf8.count <= maximumForwardedQueryBytes else {
            return AuthorizationAnswer.send(to: request.redirectURI, request.responseMode, [
                "error": OAuthError.Code.invalidRequest.rawValue,
                "error_description": control ? "a parameter holds a control character"
                    : "the request is longer than \(maximumForwardedQueryBytes) bytes once sent on as a query",
                "state": request.state, "iss": oidc.policy.issuer,
            ])
        }
        var response = Response(status: 303)
        response.headers.set("Location", oidc.policy.issuer + Endpoints.authorize.path + "?" + query)
        return OpenIDRoutes.noStore(response)
    }

    /// The longest query a posted request is sent on with: within the server's default URL
    /// limit and a proxy's default header buffer (nginx's 4 KiB) with room for the rest.
    static let maximumForwardedQueryBytes = 3 * 1024

    private enum Validated {
        case valid(AuthorizationRequest)
        case refused(Response)
    }

    /// The request, or its refusal: sent back to the client's redirect URI once the client and
    /// the URI are known good; thrown (answered to the user agent) otherwise.
    private static func validated(_ oidc: OIDCService, _ parameters: [String: String]) throws -> Validated {
        do {
            return .valid(try oidc.validate(parameters))
        } catch let refusal as AuthorizationRequestError {
            guard let redirectURI = refusal.redirectURI else { throw refusal.error }
            return .refused(AuthorizationAnswer.send(to: redirectURI, refusal.responseMode, [
                "error": refusal.error.code.rawValue, "error_description": refusal.error.description, "state": refusal.state,
                "iss": oidc.policy.issuer,
            ]))
        }
    }

    /// A WebAuthn assertion's base64url fields, within the sizes an authenticator produces.
    static func assertion(_ credentialID: String, _ authenticatorData: String, _ clientDataJSON: String, _ signature: String) throws -> WebAuthnAssertion {
        guard let authenticatorData = Data(base64URLEncoded: authenticatorData), let clientData = Data(base64URLEncoded: clientDataJSON),
              let signature = Data(base64URLEncoded: signature), signature.count <= 80, authenticatorData.count <= 1024, clientData.count <= 4096 else {
            throw OIDCError.invalid("assertion", "fields must be base64url (authenticator_data, client_data_json, signature)")
        }
        return WebAuthnAssertion(credentialID: credentialID, authenticatorData: authenticatorData, clientDataJSON: clientData, signature: signature)
    }

    static func clientInfo(_ client: OIDCClient) throws -> OIDCClientInfo {
        let decode = { (json: String?) in try json.map { try JSONDecoder().decode(ClientJWK.self, from: Data($0.utf8)) } }
        let method = client.kind == .public ? "none" : client.assertionJWK != nil ? "private_key_jwt" : "client_secret_basic"
        return OIDCClientInfo(clientID: client.id, name: client.name, clientType: client.kind.rawValue, redirectURIs: client.redirectURIs,
                              scopes: client.scopes, tokenEndpointAuthMethod: method, encryptionJWK: try decode(client.encryptionJWK),
                              assertionJWK: try decode(client.assertionJWK), idTokenSignedResponseAlg: client.idTokenAlgorithm.rawValue,
                              postLogoutRedirectURIs: client.postLogoutRedirectURIs, createdAt: client.createdAt)
    }

    static func jwkJSON(_ jwk: ClientJWK) throws -> String {
        String(decoding: try WireJSON.encoder().encode(jwk), as: UTF8.self)
    }
}

/// The page a browser sees after a logout that names no address to go on to.
enum SignedOutPage {
    static func html(_ text: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Signed out – Custos</title></head>
        <body style="font-family: system-ui, sans-serif; max-width: 32rem; margin: 3rem auto; padding: 0 1rem">
        <h1>Signed out</h1><p id="signed-out">\(HTMLText.escape(text))</p>
        </body></html>
        """
    }
}

/// The page a browser sees for a valid authorization request.
enum AuthorizePage {
    static func html(clientName: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Sign in – Custos</title></head>
        <body style="font-family: system-ui, sans-serif; max-width: 32rem; margin: 3rem auto; padding: 0 1rem">
        <h1>Sign in to \(HTMLText.escape(clientName))</h1>
        <p>This sign-in is approved on the device bound to your account: open the app on it and confirm with its
        local authentication.</p>
        </body></html>
        """
    }
}
