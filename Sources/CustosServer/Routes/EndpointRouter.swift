import CustosAPI
import CustosCore
import CustosHTTP

/// A route group that serves one kind of endpoint access (`EndpointAccess`).
struct AccessGroup<Caller: Sendable>: Sendable {
    let access: EndpointAccess
    let group: RouteGroup<Caller>

    /// The same access with `check` run on every request before authentication.
    func admitting(_ check: @escaping RouteGroup<Caller>.Admission) -> AccessGroup {
        AccessGroup(access: access, group: group.admitting(check))
    }

    /// The same access with `check` run on every authenticated request.
    func checking(_ check: @escaping RouteGroup<Caller>.CallerCheck) -> AccessGroup {
        AccessGroup(access: access, group: group.checking(check))
    }
}

/// Registers handlers by their `Endpoint`: the body decoded as the endpoint's request type,
/// the answer encoded as its answer type with its status, in a group that serves the access the
/// endpoint declares (a mismatch stops the server at start-up, not at the first request).
struct EndpointRouter {
    private(set) var router = Router()

    /// A handler that returns the endpoint's answer (`NoContent()` for a 204).
    mutating func on<Caller, Body: Decodable, Answer: Encodable>(
        _ endpoint: Endpoint<Body, Answer>, _ access: AccessGroup<Caller>,
        _ handle: @escaping @Sendable (RouteContext<Caller>, Body) throws -> Answer
    ) {
        let status = endpoint.status
        respond(endpoint, access) { context, body in
            let answer = try handle(context, body)
            return Answer.self == NoContent.self ? .noContent() : try .wire(answer, status: status)
        }
    }

    /// A handler that builds the whole response (bodies that are not contract JSON).
    mutating func respond<Caller, Body: Decodable, Answer>(
        _ endpoint: Endpoint<Body, Answer>, _ access: AccessGroup<Caller>, inline: Bool = false,
        _ handle: @escaping @Sendable (RouteContext<Caller>, Body) throws -> Response
    ) {
        precondition(access.access == endpoint.access,
                     "\(endpoint.erased) is declared for \(endpoint.access), registered in a group for \(access.access)")
        access.group.add(to: &router, HTTPMethod(rawValue: endpoint.method.rawValue), endpoint.path, inline: inline, uploads: endpoint.takesUploads) { context in
            // A request without a body declares none: whatever the client sent is not read.
            let body = try (NoContent() as? Body) ?? (Body.self == FormBody.self ? Self.form(context.request) as? Body : nil)
                ?? context.request.wire(Body.self)
            return try handle(context, body)
        }
    }

    /// A form-encoded body (the OAuth endpoints').
    private static func form(_ request: Request) throws -> FormBody {
        guard request.headers["Content-Type"]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true,
              let form = FormBody(parsing: request.body) else {
            throw OAuthError(.invalidRequest, "the body must be application/x-www-form-urlencoded, each parameter once")
        }
        return form
    }
}
