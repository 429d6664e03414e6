import Foundation

/// An OAuth / OpenID error (RFC 6749 §5.2, CIBA §13), answered in the protocol's own format
/// `{"error": code, "error_description": …}`.
public struct OAuthError: Error, Equatable, Sendable {
    public enum Code: String, Sendable {
        case invalidRequest = "invalid_request"
        case invalidClient = "invalid_client"
        case invalidGrant = "invalid_grant"
        case unauthorizedClient = "unauthorized_client"
        case unsupportedGrantType = "unsupported_grant_type"
        case invalidScope = "invalid_scope"
        case unknownUserID = "unknown_user_id"
        case invalidBindingMessage = "invalid_binding_message"
        case authorizationPending = "authorization_pending"
        case slowDown = "slow_down"
        case expiredToken = "expired_token"
        case accessDenied = "access_denied"
        case unsupportedResponseType = "unsupported_response_type"
        case requestNotSupported = "request_not_supported"
        case requestURINotSupported = "request_uri_not_supported"
        case loginRequired = "login_required"
        case invalidToken = "invalid_token"
        /// OpenID Connect Core 3.1.2.6: the authentication asked for (acr_values) cannot be met.
        case unmetAuthenticationRequirements = "unmet_authentication_requirements"
    }

    public let code: Code
    public let description: String

    public init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }

    /// 401 for a client that failed to authenticate and a bearer token refused, 400 otherwise.
    public var status: Int { code == .invalidClient || code == .invalidToken ? 401 : 400 }
}
