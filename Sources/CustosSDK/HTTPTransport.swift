import CustosAPI
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// JSON over HTTP with the three-tier error model: transport failures, then the server's
/// error envelope, then the payload (whose `status_code` the caller checks).
struct HTTPTransport: Sendable {
    let baseURL: URL
    let timeout: TimeInterval
    /// Sees the contract status of every answer (the app client's lockout handling); nil for
    /// clients without a session.
    var observer: AnswerObserver? = nil

    func get<T: Decodable>(_ path: String, bearer: String? = nil) async throws -> T {
        try decode(try await send(method: "GET", path: path, body: nil, bearer: bearer), "GET", path)
    }

    func post<Body: Encodable, T: Decodable>(_ path: String, _ body: Body, bearer: String? = nil) async throws -> T {
        try decode(try await send(method: "POST", path: path, body: try WireJSON.encoder().encode(body), bearer: bearer), "POST", path)
    }

    /// A request without a body whose answer is JSON (`DELETE` with a result, `POST` actions).
    func send<T: Decodable>(method: String, _ path: String, bearer: String?) async throws -> T {
        try decode(try await send(method: method, path: path, body: nil, bearer: bearer), method, path)
    }

    /// For answers without a body (204).
    func sendExpectingNoContent(method: String, path: String, bearer: String?) async throws {
        _ = try await send(method: method, path: path, body: nil, bearer: bearer)
    }

    /// A `GET` whose answer is not JSON: its bytes and `Content-Type`.
    func getBytes(_ path: String, bearer: String?) async throws -> (data: Data, contentType: String?) {
        let (data, response) = try await exchange(method: "GET", path: path, body: nil, bearer: bearer)
        return (data, response.value(forHTTPHeaderField: "Content-Type"))
    }

    private func send(method: String, path: String, body: Data?, bearer: String?) async throws -> Data {
        try await exchange(method: method, path: path, body: body, bearer: bearer).data
    }

    private func exchange(method: String, path: String, body: Data?, bearer: String?) async throws -> (data: Data, response: HTTPURLResponse) {
        let base = baseURL.absoluteString.hasSuffix("/") ? String(baseURL.absoluteString.dropLast()) : baseURL.absoluteString
        guard let url = URL(string: base + path) else { throw CustosError.invalidConfiguration("bad request path \(path)") }
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await URLSession.shared.data(for: request)
        } catch {
            throw CustosError.transport(error.localizedDescription)
        }
        guard let http = response as? HTTPURLResponse else {
            throw CustosError.invalidResponse("not an HTTP response")
        }
        observer?.observe(data)
        guard (200..<300).contains(http.statusCode) else {
            // An error answer's body may carry a contract status (153, 110): it becomes the
            // error's `longErrorCode` in place of the HTTP status.
            let contractStatus = AnsweredStatus(data)?.statusCode
            if let envelope = try? JSONDecoder().decode(ErrorEnvelope.self, from: data) {
                throw CustosError.server(status: http.statusCode, code: envelope.error.code, message: envelope.error.message,
                                         contractStatus: contractStatus)
            }
            throw CustosError.server(status: http.statusCode, code: "http_\(http.statusCode)",
                                     message: HTTPURLResponse.localizedString(forStatusCode: http.statusCode),
                                     contractStatus: contractStatus)
        }
        return (data, http)
    }

    private func decode<T: Decodable>(_ data: Data, _ method: String, _ path: String) throws -> T {
        do {
            return try WireJSON.decoder().decode(T.self, from: data)
        } catch {
            throw CustosError.invalidResponse("the answer to \(method) \(path) could not be decoded")
        }
    }
}
