/// Routes that share how their caller is established and what is checked before their
/// handlers run: a handler receives the request with its caller already proven (a session, an
/// API key), never reads credentials itself.
///
/// Checks run in order: `admit` checks on the bare request (cheap refusals such as a per-address
/// rate limit, before any credential is looked up), then `authenticate`, then the `caller`
/// checks (limits per user).
public struct RouteGroup<Caller: Sendable>: Sendable {
    public typealias Admission = @Sendable (Request) throws -> Void
    public typealias CallerCheck = @Sendable (Request, Caller) throws -> Void

    // Inlinable (with `add` and `context`), so a group's checks are specialized for its caller
    // type where the routes are registered, instead of looking up generic metadata per request.
    @usableFromInline let authenticate: @Sendable (Request) throws -> Caller
    @usableFromInline var admissions: [Admission] = []
    @usableFromInline var callerChecks: [CallerCheck] = []

    public init(authenticate: @escaping @Sendable (Request) throws -> Caller) {
        self.authenticate = authenticate
    }

    /// The same group with `check` run on every request before authentication.
    public func admitting(_ check: @escaping Admission) -> RouteGroup {
        var group = self
        group.admissions.append(check)
        return group
    }

    /// The same group with `check` run on every authenticated request.
    public func checking(_ check: @escaping CallerCheck) -> RouteGroup {
        var group = self
        group.callerChecks.append(check)
        return group
    }

    /// Adds a route whose handler runs after the group's checks, with its caller.
    @inlinable
    public func add(to router: inout Router, _ method: HTTPMethod, _ pattern: String, inline: Bool = false, uploads: Bool = false,
                    _ handler: @escaping @Sendable (RouteContext<Caller>) throws -> Response) {
        let group = self
        // An upload's credential is proven before its body is buffered (and again, with the
        // group's checks, when the handler runs).
        router.add(method, pattern, inline: inline, uploads: uploads, preflight: { _ = try group.authenticate($0) }) { request in
            try handler(try group.context(for: request))
        }
    }

    @inlinable
    func context(for request: Request) throws -> RouteContext<Caller> {
        for admit in admissions { try admit(request) }
        let caller = try authenticate(request)
        for check in callerChecks { try check(request, caller) }
        return RouteContext(request: request, caller: caller)
    }
}

extension RouteGroup where Caller == Void {
    /// Routes anyone may call.
    public static var open: RouteGroup<Void> { RouteGroup { _ in () } }
}

/// What a grouped handler receives: the request and its proven caller.
public struct RouteContext<Caller: Sendable>: Sendable {
    public let request: Request
    public let caller: Caller

    @usableFromInline
    init(request: Request, caller: Caller) {
        self.request = request
        self.caller = caller
    }

    /// A `{name}` segment of the route's path.
    public func parameter(_ name: String) throws -> String { try request.parameter(name) }
}
