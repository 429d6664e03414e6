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

    /// The one status of each kind of domain error.
    static func status(of kind: ErrorKind) -> Int {
        switch kind {
        case .malformed: 400
        case .unauthenticated: 401
        case .forbidden: 403
        case .notFound: 404
        case .conflict, .pending: 409
        case .gone: 410
        case .tooLarge: 413
        case .unsupportedMedia: 415
        case .invalidInput: 422
        case .locked: 423
        case .throttled: 429
        case .internal: 500
        }
    }

    /// The answer for an error a handler threw; nil for an error of no known kind (the caller
    /// answers 500 and logs it). Every domain error states its kind (`DomainError`), so none
    /// lands here by omission.
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
        case let error as OAuthError:
            var headers = ["Cache-Control": "no-store"]
            if error.code == .invalidClient { headers["WWW-Authenticate"] = #"Basic realm="custos""# }
            let body = try? JSONEncoder().encode(OAuthErrorResponse(error: error.code.rawValue, errorDescription: error.description))
            return HTTPError(status: error.status, code: error.code.rawValue, message: error.description, headers: headers, body: body)
        case let error as AuthorizationRequestError:
            return httpError(for: error.error)
        case let error as any DomainError:
            guard error.kind != .internal else { return .internalError }
            return HTTPError(status: status(of: error.kind), code: error.code, message: error.message,
                             headers: error.retryAfterSeconds.map { ["Retry-After": String($0)] } ?? [:])
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
