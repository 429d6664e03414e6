import CustosAPI
import CustosCore
import CustosHTTP
import Foundation

/// OpenID Connect discovery and CIBA: the backchannel authentication endpoint, the token
/// endpoint's CIBA grant, and the relying party's choice of poll or ping. Errors of the OAuth
/// endpoints are OAuth's (`{"error": …}`), see `ErrorMapping`.
enum OpenIDRoutes {
    static let cibaGrant = "urn:openid:params:grant-type:ciba"

    static func register(on routes: inout EndpointRouter, _ groups: AccessGroups, ciba service: CIBAService?, oidc: OIDCService?) {
        @Sendable func ciba() throws -> CIBAService {
            guard let service else { throw HTTPError(status: 404, code: "not_found", message: "This server runs no OpenID provider.") }
            return service
        }
        routes.respond(Endpoints.openIDConfiguration, groups.anyone) { _, _ in
            let ciba = try ciba()
            var response = Response.json(raw: try JSONSerialization.data(withJSONObject: discovery(ciba: ciba, oidc: oidc),
                                                                          options: [.sortedKeys, .withoutEscapingSlashes]))
            response.headers.set("Cache-Control", "public, max-age=300")
            return response
        }
        routes.respond(Endpoints.backchannelAuthentication, groups.signIn) { context, form in
            let ciba = try ciba()
            let client = try ciba.authenticateClient(try OAuthWireMapping.credentials(context.request, form))
            return noStore(try .wire(OAuthWireMapping.ticket(try ciba.authenticate(client: client, request: OAuthWireMapping.backchannelRequest(form)))))
        }
        routes.respond(Endpoints.token, groups.signIn) { context, form in
            guard form["grant_type"] == cibaGrant else {
                let served = [OIDCService.authorizationCodeGrant, OIDCService.refreshTokenGrant]
                guard let oidc, let grant = form["grant_type"], served.contains(grant) else {
                    throw OAuthError(.unsupportedGrantType, "this token endpoint serves the grants \((oidc == nil ? [] : served) + [cibaGrant])")
                }
                let client = try oidc.authenticateClient(try OAuthWireMapping.credentials(context.request, form))
                return noStore(try .wire(OAuthWireMapping.tokens(try oidc.token(client: client, grant: OAuthWireMapping.grant(form)))))
            }
            let ciba = try ciba()
            let client = try ciba.authenticateClient(try OAuthWireMapping.credentials(context.request, form))
            guard let authReqID = form["auth_req_id"], !authReqID.isEmpty, authReqID.utf8.count <= 256 else {
                throw OAuthError(.invalidRequest, "auth_req_id is required")
            }
            return noStore(try .wire(OAuthWireMapping.tokens(try ciba.token(client: client, authReqID: authReqID))))
        }
        routes.on(Endpoints.registerCIBAClient, groups.rp) { context, body in
            guard let mode = CIBAClient.Mode(rawValue: body.backchannelTokenDeliveryMode) else {
                throw StepUpError.invalid("backchannel_token_delivery_mode", "must be poll or ping")
            }
            let client = try ciba().register(CIBAClient(clientID: context.caller.id, mode: mode,
                                                        notificationEndpoint: body.backchannelClientNotificationEndpoint),
                                             actor: context.caller.id)
            return CIBAClientRegistration(clientID: client.clientID, backchannelTokenDeliveryMode: mode.rawValue,
                                          backchannelClientNotificationEndpoint: client.notificationEndpoint)
        }
    }

    /// The discovery document (OpenID Connect Discovery 1.0 §3, CIBA §4).
    static func discovery(ciba: CIBAService, oidc: OIDCService?) -> [String: Any] {
        let issuer = ciba.issuer
        var document: [String: Any] = [
            "issuer": issuer,
            "jwks_uri": issuer + Endpoints.jwks.path,
            "token_endpoint": issuer + Endpoints.token.path,
            "backchannel_authentication_endpoint": issuer + Endpoints.backchannelAuthentication.path,
            "backchannel_token_delivery_modes_supported": ["poll", "ping"],
            "backchannel_user_code_parameter_supported": false,
            "grant_types_supported": [cibaGrant],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
            "id_token_signing_alg_values_supported": SigningAlgorithm.allCases.map(\.rawValue),
            "subject_types_supported": ["public"],
            "scopes_supported": ["openid"],
            "acr_values_supported": ciba.supportedACRValues,
            "claims_supported": ["iss", "sub", "aud", "exp", "iat", "auth_time", "acr", "amr"],
            "authorization_details_types_supported": ["payment"],
        ]
        guard oidc != nil else { return document }
        document["authorization_endpoint"] = issuer + Endpoints.authorize.path
        document["userinfo_endpoint"] = issuer + Endpoints.userInfo.path
        document["end_session_endpoint"] = issuer + Endpoints.endSession.path
        document["revocation_endpoint"] = issuer + Endpoints.revokeToken.path
        document["introspection_endpoint"] = issuer + Endpoints.introspectToken.path
        document["response_types_supported"] = ["code"]
        document["response_modes_supported"] = ["query", "form_post"]
        document["grant_types_supported"] = [OIDCService.authorizationCodeGrant, OIDCService.refreshTokenGrant, cibaGrant]
        document["code_challenge_methods_supported"] = ["S256"]
        document["token_endpoint_auth_methods_supported"] = ["none", "client_secret_basic", "client_secret_post", "private_key_jwt"]
        document["token_endpoint_auth_signing_alg_values_supported"] = ["ES256"]
        // Introspection is for confidential clients only: a public client's `none` is refused there.
        document["revocation_endpoint_auth_methods_supported"] = ["none", "client_secret_basic", "client_secret_post", "private_key_jwt"]
        document["introspection_endpoint_auth_methods_supported"] = ["client_secret_basic", "client_secret_post", "private_key_jwt"]
        document["id_token_encryption_alg_values_supported"] = ["ECDH-ES+A256KW"]
        document["id_token_encryption_enc_values_supported"] = ["A256GCM"]
        document["scopes_supported"] = OIDCService.supportedScopes
        document["prompt_values_supported"] = ["none", "login", "consent", "select_account"]
        document["claims_supported"] = ["iss", "sub", "aud", "exp", "iat", "auth_time", "nonce", "acr", "amr", "azp", "sid"] + UserClaims.names
        document["authorization_response_iss_parameter_supported"] = true
        document["request_parameter_supported"] = false
        document["request_uri_parameter_supported"] = false
        return document
    }

    /// `Authorization: Basic` credentials (each form-urlencoded, RFC 6749 §2.3.1).
    static func basicCredentials(_ request: Request) throws -> (id: String, secret: String)? {
        guard let value = request.headers["Authorization"] else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic" else { return nil }
        guard let decoded = Data(base64Encoded: String(parts[1]).trimmingCharacters(in: .whitespaces)),
              let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":"),
              let id = String(text[..<colon]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding,
              let secret = String(text[text.index(after: colon)...]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding else {
            throw OAuthError(.invalidClient, "unreadable HTTP Basic credentials")
        }
        return (id, secret)
    }

    /// Token answers are never cached (RFC 6749 §5.1).
    static func noStore(_ response: Response) -> Response {
        var response = response
        response.headers.set("Cache-Control", "no-store")
        response.headers.set("Pragma", "no-cache")
        return response
    }
}
