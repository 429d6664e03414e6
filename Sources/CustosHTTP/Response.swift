import Foundation

/// An HTTP answer. Build one with `.json(raw:)`, `.error(_:)` or `.text(_:)`;
/// the server encodes contract values with the wire's one JSON configuration (`WireJSON`).
public struct Response: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: Data

    public init(status: Int = 200, headers: HTTPHeaders = HTTPHeaders(), body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON body already encoded (for constant answers kept out of the hot path).
    public static func json(raw body: Data, status: Int = 200) -> Response {
        Response(status: status, headers: jsonHeaders, body: body)
    }

    /// One list shared by every JSON answer (copied on write), not two arrays built per answer.
    private static let jsonHeaders = HTTPHeaders([("Content-Type", "application/json")])

    public static func text(_ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8") -> Response {
        Response(status: status, headers: HTTPHeaders([("Content-Type", contentType)]), body: Data(text.utf8))
    }

    /// The standard error body for `error`, with its extra headers.
    public static func error(_ error: HTTPError) -> Response {
        var response = Response.json(raw: error.body ?? ErrorBody.encode(code: error.code, message: error.message), status: error.status)
        for (name, value) in error.headers.sorted(by: { $0.key < $1.key }) {
            response.headers.set(name, value)
        }
        return response
    }

    public static func noContent() -> Response { Response(status: 204) }

    /// `Cache-Control` of an answer that does not say how it may be cached: never stored, since
    /// this server's answers carry tokens, codes, keys and personal data (RFC 9111 §5.2.2.5).
    static let uncachedDirective: StaticString = "no-store"
}

/// Encodes `{"error":{"code":…,"message":…}}` without a JSONEncoder round trip.
enum ErrorBody {
    static func encode(code: String, message: String) -> Data {
        var json = JSONLineWriter(capacity: 64 + message.utf8.count)
        json.raw(#"{"error":{"code":"#)
        json.string(code)
        json.raw(#","message":"#)
        json.string(message)
        json.raw("}}")
        return Data(json.bytes)
    }
}
