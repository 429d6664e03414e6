import Foundation

/// Who may call an endpoint.
public enum EndpointAccess: Sendable, Hashable {
    /// Anyone: health probes, activation and login (which prove who the caller is).
    case anyone
    /// A session's bearer token (`cs_…`) from activation or login.
    case session
    /// A session, or none when the body carries a single-use password-change token.
    case sessionOrChangeToken
    /// An API key (`ck_…`) of this scope.
    case apiKey(APIKeyScope)
}

/// What an API key may do: `admin` manages keys, `rp` (the relying party's server) users and verdicts.
public enum APIKeyScope: String, Sendable, Hashable, CaseIterable {
    case admin, rp
}

public enum EndpointMethod: String, Sendable, Hashable {
    case get = "GET", post = "POST", put = "PUT", patch = "PATCH", delete = "DELETE"
}

/// No JSON body: a request without one, a 204 answer.
public struct NoContent: Codable, Sendable, Equatable {
    public init() {}
}

/// A body that is not a JSON object of the contract: Prometheus text, a JWK set passed through,
/// a document image's bytes.
public struct OpaqueBody: Sendable {}

/// One operation of the API: its method, path template, who may call it, and the types of
/// its request body and its answer. The server registers its handlers by these values, the
/// SDK and admin client build their requests from them, and the OpenAPI test holds them
/// against `openapi.yaml`.
public struct Endpoint<Body: Sendable, Answer: Sendable>: Sendable {
    public let method: EndpointMethod
    /// `{name}` marks a path parameter: `/v1/users/{id}/devices`.
    public let path: String
    public let access: EndpointAccess
    /// The status of a successful answer (201 for a creation, 204 with `NoContent`).
    public let status: Int
    /// Takes large bodies (selfie frames, document images); every other request body is small.
    public let takesUploads: Bool

    public init(_ method: EndpointMethod, _ path: String, _ access: EndpointAccess, status: Int? = nil, uploads: Bool = false) {
        self.method = method
        self.path = path
        self.access = access
        self.status = status ?? (Answer.self == NoContent.self ? 204 : 200)
        self.takesUploads = uploads
    }

    /// The path with its parameters filled in, in order, each percent-encoded as one segment:
    /// `Endpoints.userDevices.path("alice")` is `/v1/users/alice/devices`.
    public func path(_ parameters: String...) -> String { path(parameters) }

    public func path(_ parameters: [String]) -> String {
        var remaining = parameters[...]
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).map { segment -> String in
            guard segment.hasPrefix("{"), segment.hasSuffix("}") else { return String(segment) }
            precondition(!remaining.isEmpty, "\(path) needs more parameters")
            return Self.escape(remaining.removeFirst())
        }
        precondition(remaining.isEmpty, "\(path) takes fewer parameters")
        return segments.joined(separator: "/")
    }

    public var erased: AnyEndpoint {
        AnyEndpoint(method: method, path: path, access: access, status: status, takesUploads: takesUploads,
                    body: Body.self, answer: Answer.self)
    }

    private static func escape(_ segment: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#")
        return segment.addingPercentEncoding(withAllowedCharacters: allowed) ?? segment
    }
}

/// An endpoint with its types as values, for the table of all of them.
public struct AnyEndpoint: @unchecked Sendable, CustomStringConvertible {
    public let method: EndpointMethod
    public let path: String
    public let access: EndpointAccess
    public let status: Int
    public let takesUploads: Bool
    /// Metatypes (immutable, hence the unchecked `Sendable`).
    public let body: Any.Type
    public let answer: Any.Type

    public var description: String { "\(method.rawValue) \(path)" }
}
