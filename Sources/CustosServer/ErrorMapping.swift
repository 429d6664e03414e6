import CustosAPI
import CustosCore
import CustosHTTP
import Foundation

/// The one place where domain and infrastructure errors become HTTP answers.
/// Details stay in the log; clients get a stable code and a plain message.
public enum ErrorMapping {
    /// The paths whose request errors are OAuth's (RFC 6749 §5.2): the OAuth endpoints and the
    /// device sign-in that starts an authorization request.
    static func speaksOAuth(_ path: String) -> Bool {
        path.hasPrefix("/oauth2/") || path == "/v1/oidc/device-sign-in"
    }

    /// A 400 in the standard envelope answered on an OAuth path (a malformed query or body,
    /// found before the handler could speak OAuth) becomes OAuth's `invalid_request` body, as
    /// openapi.yaml declares for those paths; everything else is left as it is.
    public static func styled(path: String, _ error: HTTPError) -> HTTPError {
        guard error.status == 400, error.body == nil, speaksOAuth(path) else { return error }
        return httpError(for: OAuthError(.invalidRequest, error.message)) ?? error
    }

    public static func httpError(for error: any Error) -> HTTPError? {
        switch error {
        case let error as HTTPError:
            return error
        case let error as StoreError:
            switch error {
            case .unavailable:
                return HTTPError(status: 503, code: "database_unavailable",
                                 message: "The database is unavailable; try again shortly.", headers: ["Retry-After": "1"])
            case .duplicate:
                return HTTPError(status: 409, code: "conflict", message: "The resource already exists.")
            case .migrationFailed, .failure:
                return .internalError
            }
        case let error as IdentityError:
            if case .throttled(let seconds) = error {
                return HTTPError(status: 429, code: error.code, message: error.message, headers: ["Retry-After": String(seconds)])
            }
            if error == .attemptsInFlight {
                return HTTPError(status: 429, code: error.code, message: error.message, headers: ["Retry-After": "1"])
            }
            if error == .approvalPending {
                // As a device authorization grant's authorization_pending (RFC 8628 §3.5): ask again.
                return HTTPError(status: 409, code: error.code, message: error.message, headers: ["Retry-After": "2"])
            }
            let status = switch error.kind {
            case .invalidInput: 422
            case .unauthenticated: 401
            case .forbidden: 403
            case .notFound: 404
            case .conflict: 409
            case .locked: 423
            case .throttled: 429
            case .pending: 409
            }
            return HTTPError(status: status, code: error.code, message: error.message)
        case let error as IDVError:
            let status = switch error.kind {
            case .invalidInput: 422
            case .forbidden: 403
            case .notFound: 404
            case .conflict: 409
            case .tooLarge: 413
            case .unsupportedMedia: 415
            }
            return HTTPError(status: status, code: error.code, message: error.message)
        case let error as OAuthError:
            var headers = ["Cache-Control": "no-store"]
            if error.code == .invalidClient { headers["WWW-Authenticate"] = #"Basic realm="custos""# }
            let body = try? JSONEncoder().encode(OAuthErrorResponse(error: error.code.rawValue, errorDescription: error.description))
            return HTTPError(status: error.status, code: error.code.rawValue, message: error.description, headers: headers, body: body)
        case let error as SecurityEventError:
            let status = switch error.kind {
            case .invalidInput: 400
            case .notFound: 404
            case .conflict: 409
            }
            return HTTPError(status: status, code: error.code, message: error.message)
        case let error as StepUpError:
            let status = switch error.kind {
            case .invalidInput: 422
            case .forbidden: 403
            case .notFound: 404
            case .conflict: 409
            case .gone: 410
            case .tooMany: 429
            }
            return HTTPError(status: status, code: error.code, message: error.message)
        case let error as OIDCError:
            let status = switch error.kind {
            case .invalidInput: 422
            case .unauthenticated: 401
            case .forbidden: 403
            case .notFound: 404
            case .gone: 410
            case .locked: 423
            }
            return HTTPError(status: status, code: error.code, message: error.message)
        case let error as AuthorizationRequestError:
            return httpError(for: error.error)
        case AuditError.invalidPage(let message):
            return HTTPError(status: 422, code: "invalid_field", message: message)
        case AuditError.invalidIdentifier(let field):
            return HTTPError(status: 422, code: "invalid_field", message: "\(field == "user_id" ? "user" : "transaction") must not be empty or hold control characters.")
        case let error as FaceError where error.code == .busy:
            // Overload, refused before anything was spent: the same answer as a full worker queue.
            let seconds = error.retryAfterSeconds ?? 1
            return HTTPError(status: 503, code: HTTPError.serverBusy.code, message: "The server is busy analysing faces; try again in \(seconds) s.",
                             headers: ["Retry-After": String(seconds)])
        case is FaceError:
            // Engine trouble reaching a handler (models, memory): never the client's fault.
            return HTTPError(status: 503, code: "face_engine_unavailable", message: "The face engine cannot process this now.")
        default:
            return nil
        }
    }
}
