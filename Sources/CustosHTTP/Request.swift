import Foundation

/// One HTTP request as the router and handlers see it: fully read, limits already checked.
public struct Request: Sendable {
    public var method: HTTPMethod
    /// The decoded path without the query string, e.g. `/v1/users/alice`.
    public var path: String
    /// Decoded query arguments; the first value wins for repeated keys.
    public var query: [String: String]
    public var headers: HTTPHeaders
    public var body: Data
    /// `X-Request-Id` from the client when well formed, else generated.
    public var requestID: String
    /// The peer's address, when known; `remoteAddress?.description` is `127.0.0.1` or `::1`.
    public var remoteAddress: RemoteAddress?
    /// Values of `{name}` segments of the matched route.
    public var pathParameters = [String: String]()

    public init(method: HTTPMethod, path: String, query: [String: String] = [:], headers: HTTPHeaders = HTTPHeaders(),
                body: Data = Data(), requestID: String = "test", remoteAddress: RemoteAddress? = nil) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.requestID = requestID
        self.remoteAddress = remoteAddress
    }

    /// A path parameter the route declares; a missing one is a programming error answered as 500.
    public func parameter(_ name: String) throws -> String {
        guard let value = pathParameters[name] else {
            throw HTTPError.internalError
        }
        return value
    }

    /// Decodes a JSON body, answering the client precisely when it cannot:
    /// 415 when the content type is not JSON, 400 when the body is not JSON at all,
    /// 422 when it is JSON of the wrong shape (missing field, wrong type).
    public func decodeJSON<T: Decodable>(_ type: T.Type, decoder: JSONDecoder = JSONDecoder()) throws -> T {
        guard isJSONContentType(headers["Content-Type"]) else {
            throw HTTPError.unsupportedMediaType(expected: "application/json")
        }
        guard !body.isEmpty else {
            throw HTTPError.badRequest("malformed_json", "The request body is empty; a JSON document is required.")
        }
        do {
            return try decoder.decode(T.self, from: body)
        } catch let error as DecodingError {
            throw JSONDecodingFailure.httpError(for: error, body: body)
        }
    }
}

/// `application/json`, optionally with parameters such as `; charset=utf-8`.
func isJSONContentType(_ value: String?) -> Bool {
    guard let value else { return false }
    let mediaType = value.split(separator: ";", maxSplits: 1).first.map {
        $0.trimmingCharacters(in: .whitespaces).lowercased()
    }
    return mediaType == "application/json"
}

enum JSONDecodingFailure {
    /// Maps a decoding error to 400 (not JSON) or 422 (JSON of the wrong shape), naming the field.
    static func httpError(for error: DecodingError, body: Data) -> HTTPError {
        switch error {
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            // Some Foundation versions report a value that does not fit its type (1.5 for an
            // integer) as "not valid JSON"; a second, error-path-only parse tells them apart.
            if (try? JSONSerialization.jsonObject(with: body, options: .fragmentsAllowed)) != nil {
                return .unprocessable("invalid_field", "A field has a value of the wrong type or range.")
            }
            return .badRequest("malformed_json", "The request body is not valid JSON.")
        case .dataCorrupted(let context):
            return .unprocessable("invalid_field", "Field '\(path(context.codingPath))' has an invalid value.")
        case .keyNotFound(let key, let context):
            return .unprocessable("missing_field", "Field '\(path(context.codingPath + [key]))' is required.")
        case .typeMismatch(let type, let context):
            return .unprocessable("wrong_type", "Field '\(path(context.codingPath))' must be of type \(describe(type)).")
        case .valueNotFound(let type, let context):
            return .unprocessable("missing_field", "Field '\(path(context.codingPath))' must be a \(describe(type)), not null.")
        @unknown default:
            return .unprocessable("invalid_request", "The request body has the wrong shape.")
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        if keys.isEmpty { return "(root)" }
        return keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            .replacingOccurrences(of: ".[", with: "[")
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "string"
        case is Bool.Type: return "boolean"
        case is Int.Type, is Int64.Type, is Int32.Type, is UInt.Type, is UInt64.Type: return "integer"
        case is Double.Type, is Float.Type: return "number"
        default:
            return String(describing: type).hasPrefix("Array") ? "array" : "object"
        }
    }
}
