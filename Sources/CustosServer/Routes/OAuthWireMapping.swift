import CustosAPI
import CustosCore
import CustosHTTP
import Foundation

/// OAuth's wire (form bodies in, JSON out) to and from the OpenID services' domain types.
enum OAuthWireMapping {
    /// The client authentication a request carries: HTTP Basic and the body's fields.
    static func credentials(_ request: Request, _ form: FormBody) throws -> ClientCredentials {
        ClientCredentials(basic: try OpenIDRoutes.basicCredentials(request), clientID: form["client_id"], clientSecret: form["client_secret"],
                          assertionType: form["client_assertion_type"], assertion: form["client_assertion"])
    }

    /// The token endpoint's `authorization_code` or `refresh_token` grant.
    static func grant(_ form: FormBody) throws -> TokenGrant {
        switch form["grant_type"] {
        case OIDCService.authorizationCodeGrant:
            .authorizationCode(code: form["code"], redirectURI: form["redirect_uri"], verifier: form["code_verifier"])
        case OIDCService.refreshTokenGrant:
            .refreshToken(form["refresh_token"], scope: form["scope"])
        case nil: throw OAuthError(.invalidRequest, "grant_type is required")
        case let other?: throw OAuthError(.unsupportedGrantType, "the grant \(other) is not served")
        }
    }

    static func backchannelRequest(_ form: FormBody) -> BackchannelRequest {
        BackchannelRequest(scope: form["scope"], loginHint: form["login_hint"], idTokenHint: form["id_token_hint"],
                           loginHintToken: form["login_hint_token"], userCode: form["user_code"], acrValues: form["acr_values"],
                           bindingMessage: form["binding_message"], requestedExpiry: form["requested_expiry"],
                           authorizationDetails: form["authorization_details"], clientNotificationToken: form["client_notification_token"])
    }

    static func tokens(_ issued: IssuedTokens) -> TokenResponse {
        TokenResponse(accessToken: issued.accessToken, expiresIn: issued.expiresIn, idToken: issued.idToken, scope: issued.scope,
                      refreshToken: issued.refreshToken)
    }

    static func ticket(_ ticket: BackchannelTicket) -> BackchannelAuthenticationResponse {
        BackchannelAuthenticationResponse(authReqID: ticket.authReqID, expiresIn: ticket.expiresIn, interval: ticket.interval)
    }

    /// RFC 7662 §2.2's JSON: `active`, and for an active token what the client may know.
    static func introspection(_ answer: TokenIntrospection) throws -> Data {
        var object: [String: Any] = ["active": answer.active]
        let members: [(String, Any?)] = [
            ("token_type", answer.kind?.rawValue), ("client_id", answer.clientID), ("sub", answer.subject), ("scope", answer.scope),
            ("exp", answer.expiresAt), ("iat", answer.issuedAt), ("iss", answer.issuer), ("aud", answer.audience), ("jti", answer.jti),
            ("acr", answer.acr), ("auth_time", answer.authTime),
        ]
        for case let (name, value?) in members { object[name] = value }
        return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
    }
}
