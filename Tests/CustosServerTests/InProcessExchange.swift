import CustosHTTP
import CustosSDK
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The SDK's requests answered by the server in this process (`HTTPServer.respond`), without a
/// socket or URLSession: for tests of what lies behind the transport. The transport itself —
/// connections, libmicrohttpd's limits and headers, URLSession — is tested by the suites that
/// ask for `.socket`.
struct InProcessExchange: HTTPExchange {
    let server: HTTPServer

    func exchange(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        // A stopped server listens no more: nothing answers, as on a socket.
        guard server.port != nil else { throw URLError(.cannotConnectToHost) }
        guard let url = request.url, let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw URLError(.badURL)
        }
        var headers = HTTPHeaders()
        for (name, value) in request.allHTTPHeaderFields ?? [:] { headers.add(name, value) }
        if headers["Host"] == nil, let host = components.percentEncodedHost {
            headers.add("Host", components.port.map { "\(host):\($0)" } ?? host)
        }
        let target = (components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath)
            + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
        let response = await server.respond(method: request.httpMethod ?? "GET", target: target, headers: headers,
                                            body: request.httpBody ?? Data())
        // Fields sent on several lines are one field joined with commas, as URLSession gives them.
        var fields: [String: String] = [:]
        for field in response.headers {
            fields[field.name] = fields[field.name].map { "\($0), \(field.value)" } ?? field.value
        }
        guard let answer = HTTPURLResponse(url: url, statusCode: response.status, httpVersion: "HTTP/1.1", headerFields: fields) else {
            throw URLError(.badServerResponse)
        }
        return (response.body, answer)
    }
}
