import Foundation

/// An HTTP answer. Build one with `.json(_:)`, `.error(_:)` or `.text(_:)`.
public struct Response: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: Data

    public init(status: Int = 200, headers: HTTPHeaders = HTTPHeaders(), body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON body encoded from `value` (keys sorted, so answers are stable byte for byte).
    public static func json<T: Encodable>(_ value: T, status: Int = 200) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return .json(raw: try encoder.encode(value), status: status)
    }

    /// A JSON body already encoded (for constant answers kept out of the hot path).
    public static func json(raw body: Data, status: Int = 200) -> Response {
        Response(status: status, headers: HTTPHeaders([("Content-Type", "application/json")]), body: body)
    }

    public static func text(_ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8") -> Response {
        Response(status: status, headers: HTTPHeaders([("Content-Type", contentType)]), body: Data(text.utf8))
    }

    /// The standard error body for `error`, with its extra headers.
    public static func error(_ error: HTTPError) -> Response {
        var response = Response.json(raw: ErrorBody.encode(code: error.code, message: error.message), status: error.status)
        for (name, value) in error.headers.sorted(by: { $0.key < $1.key }) {
            response.headers.set(name, value)
        }
        return response
    }

    public static func noContent() -> Response { Response(status: 204) }
}

/// Encodes `{"error":{"code":…,"message":…}}` without a JSONEncoder round trip.
enum ErrorBody {
    static func encode(code: String, message: String) -> Data {
        var out = #"{"error":{"code":"#
        appendJSONString(code, to: &out)
        out += #","message":"#
        appendJSONString(message, to: &out)
        out += "}}"
        return Data(out.utf8)
    }
}

/// Appends `value` as a JSON string literal (quotes and escapes included).
func appendJSONString(_ value: String, to out: inout String) {
    out.append("\"")
    for scalar in value.unicodeScalars {
        switch scalar {
        case "\"": out.append("\\\"")
        case "\\": out.append("\\\\")
        case "\n": out.append("\\n")
        case "\r": out.append("\\r")
        case "\t": out.append("\\t")
        case _ where scalar.value < 0x20:
            out.append("\\u")
            let hex = String(scalar.value, radix: 16)
            out.append(String(repeating: "0", count: 4 - hex.count) + hex)
        default: out.unicodeScalars.append(scalar)
        }
    }
    out.append("\"")
}
