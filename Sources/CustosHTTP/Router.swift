/// Handles one request; runs on a server worker thread and may block (database, crypto),
/// unless the route runs inline (see `Route.runsInline`).
public typealias Handler = @Sendable (Request) throws -> Response

/// Maps method + path to a handler. Patterns are literal segments and `{name}` parameters:
/// `/v1/users/{id}/devices`. Static routes are found with one dictionary look-up.
public struct Router: Sendable {
    /// A class, not a struct: a match hands the route on without retaining each of its fields.
    public final class Route: Sendable {
        public let method: HTTPMethod
        public let pattern: String
        /// Position in `routes`; lets metrics find a route's counters without hashing strings.
        public let index: Int
        /// Answered on the event-loop thread, never queued behind the workers: cheap routes
        /// that must answer while the server is saturated (`/healthz`, `/readyz`, `/metrics`).
        public let runsInline: Bool
        /// Takes bodies up to `maxUploadBytes` (selfie frames, document images); every other
        /// route only up to `maxBodyBytes`, refused before more is buffered.
        public let takesUploads: Bool
        /// For a route that takes uploads: checked on the request's headers before a body larger
        /// than the ordinary limit is buffered (the caller's credential), so a stranger cannot
        /// make the server hold megabytes per connection.
        public let preflight: (@Sendable (Request) throws -> Void)?
        let segments: [Segment]
        let handler: Handler

        init(method: HTTPMethod, pattern: String, index: Int, runsInline: Bool, takesUploads: Bool,
             preflight: (@Sendable (Request) throws -> Void)?, segments: [Segment], handler: @escaping Handler) {
            self.method = method
            self.pattern = pattern
            self.index = index
            self.runsInline = runsInline
            self.takesUploads = takesUploads
            self.preflight = preflight
            self.segments = segments
            self.handler = handler
        }
    }

    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    public enum Match: Sendable {
        case found(Route, parameters: [String: String])
        case methodNotAllowed([HTTPMethod])
        case notFound
    }

    /// By path: its routes, one per method (a few; scanned, which costs less than hashing again).
    private var staticRoutes: [String: [Route]] = [:]
    private var parameterRoutes: [Route] = []
    public private(set) var routes: [Route] = []

    public init() {}

    /// Adds a route. Adding the same method and pattern twice is a programming error.
    public mutating func add(_ method: HTTPMethod, _ pattern: String, inline: Bool = false, uploads: Bool = false,
                             preflight: (@Sendable (Request) throws -> Void)? = nil, _ handler: @escaping Handler) {
        let segments = Router.split(pattern).map { part -> Segment in
            if part.hasPrefix("{") && part.hasSuffix("}") {
                return .parameter(String(part.dropFirst().dropLast()))
            }
            return .literal(String(part))
        }
        precondition(!routes.contains { $0.method == method && $0.pattern == pattern }, "duplicate route \(method) \(pattern)")
        let route = Route(method: method, pattern: pattern, index: routes.count, runsInline: inline, takesUploads: uploads,
                          preflight: uploads ? preflight : nil, segments: segments, handler: handler)
        routes.append(route)
        if segments.allSatisfy({ if case .literal = $0 { true } else { false } }) {
            staticRoutes[Router.normalized(pattern), default: []].append(route)
        } else {
            parameterRoutes.append(route)
        }
    }

    public mutating func get(_ pattern: String, inline: Bool = false, _ handler: @escaping Handler) {
        add(.get, pattern, inline: inline, handler)
    }
    public mutating func post(_ pattern: String, uploads: Bool = false, _ handler: @escaping Handler) {
        add(.post, pattern, uploads: uploads, handler)
    }
    public mutating func put(_ pattern: String, _ handler: @escaping Handler) { add(.put, pattern, handler) }
    public mutating func delete(_ pattern: String, _ handler: @escaping Handler) { add(.delete, pattern, handler) }

    /// Finds the handler for `method` and `path`. HEAD is served by GET routes.
    public func match(_ method: HTTPMethod, _ path: String) -> Match {
        let lookup = method == .head ? HTTPMethod.get : method
        if let byMethod = staticRoutes[Router.normalized(path)] {
            if let route = byMethod.first(where: { $0.method == lookup }) {
                return .found(route, parameters: [String: String]())
            }
            return .methodNotAllowed(Router.allowed(byMethod.map(\.method)))
        }
        let parts = Router.split(path)
        var allowed: Set<HTTPMethod> = []
        for route in parameterRoutes {
            guard let parameters = Router.bind(route.segments, to: parts) else { continue }
            if route.method == lookup {
                return .found(route, parameters: parameters)
            }
            allowed.insert(route.method)
        }
        return allowed.isEmpty ? .notFound : .methodNotAllowed(Router.allowed(allowed))
    }

    private static func bind(_ segments: [Segment], to parts: [Substring]) -> [String: String]? {
        guard segments.count == parts.count else { return nil }
        var parameters: [String: String] = [:]
        for (segment, part) in zip(segments, parts) {
            switch segment {
            case .literal(let literal) where literal != part: return nil
            case .literal: continue
            case .parameter(let name):
                guard !part.isEmpty else { return nil }
                parameters[name] = String(part)
            }
        }
        return parameters
    }

    private static func allowed(_ methods: some Sequence<HTTPMethod>) -> [HTTPMethod] {
        var set = Set(methods)
        if set.contains(.get) { set.insert(.head) }
        return set.sorted { $0.rawValue < $1.rawValue }
    }

    private static func split(_ path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: true)
    }

    /// `/a/b/` and `/a/b` are the same route.
    private static func normalized(_ path: String) -> String {
        path.utf8.count > 1 && path.utf8.last == UInt8(ascii: "/") ? String(path.dropLast()) : path
    }
}
