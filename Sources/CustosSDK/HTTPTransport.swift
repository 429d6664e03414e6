import CustosAPI
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Calls the API's endpoints (`Endpoints`) with the three-tier error model: transport
/// failures, then the server's error envelope, then the payload (whose `status_code` the
/// caller checks).
struct HTTPTransport: Sendable {
    let baseURL: URL
    let timeout: TimeInterval
    let exchange: any HTTPExchange
    /// Sees the contract status of every answer (the app client's lockout handling); nil for
    /// clients without a session.
    var observer: AnswerObserver? = nil

    /// Calls `endpoint` with its path parameters in order.
    func call<Body: Encodable, Answer: Decodable>(_ endpoint: Endpoint<Body, Answer>, _ parameters: String..., body: Body,
                                                  bearer: String? = nil) async throws -> Answer {
        try await perform(endpoint, path: endpoint.path(parameters), body: try WireJSON.encoder().encode(body), bearer: bearer)
    }

    /// Calls an endpoint that takes no request body; `query` is appended to its path.
    func call<Answer: Decodable>(_ endpoint: Endpoint<NoContent, Answer>, _ parameters: String..., query: [URLQueryItem] = [],
                                 bearer: String? = nil) async throws -> Answer {
        var components = URLComponents()
        components.queryItems = query.isEmpty ? nil : query
        return try await perform(endpoint, path: endpoint.path(parameters) + (components.percentEncodedQuery.map { "?" + $0 } ?? ""),
                                 body: nil, bearer: bearer)
    }

    /// An answer that is not JSON (a document image): its bytes and `Content-Type`.
    func bytes(_ endpoint: Endpoint<NoContent, OpaqueBody>, _ parameters: String..., bearer: String?) async throws
        -> (data: Data, contentType: String?) {
        let (data, response) = try await send(endpoint.method.rawValue, endpoint.path(parameters), body: nil, bearer: bearer)
        return (data, response.value(forHTTPHeaderField: "Content-Type"))
    }

    /// Posts an OAuth endpoint's form (`application/x-www-form-urlencoded`).
    func form<Answer: Decodable>(_ endpoint: Endpoint<FormBody, Answer>, fields: [String: String]) async throws -> Answer {
        let (data, _) = try await send(endpoint.method.rawValue, endpoint.path, body: FormBody(fields: fields).encoded, bearer: nil,
                                       contentType: "application/x-www-form-urlencoded")
        do {
            return try WireJSON.decoder().decode(Answer.self, from: data)
        } catch {
            throw CustosError.invalidResponse("the answer to \(endpoint.method.rawValue) \(endpoint.path) could not be decoded")
        }
    }

    /// A `NoContent` answer reads no body.
    private func perform<Body, Answer: Decodable>(_ endpoint: Endpoint<Body, Answer>, path: String, body: Data?,
                                                  bearer: String?) async throws -> Answer {
        let (data, _) = try await send(endpoint.method.rawValue, path, body: body, bearer: bearer)
        if let none = NoContent() as? Answer { return none }
        do {
            return try WireJSON.decoder().decode(Answer.self, from: data)
        } catch {
            throw CustosError.invalidResponse("the answer to \(endpoint.method.rawValue) \(endpoint.path) could not be decoded")
        }
    }

    private func send(_ method: String, _ path: String, body: Data?, bearer: String?,
                      contentType: String = "application/json") async throws -> (data: Data, response: HTTPURLResponse) {
        let base = baseURL.absoluteString.hasSuffix("/") ? String(baseURL.absoluteString.dropLast()) : baseURL.absoluteString
        guard let url = URL(string: base + path) else { throw CustosError.invalidConfiguration("bad request path \(path)") }
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = body
            request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        }
        let data: Data
        let http: HTTPURLResponse
        do {
            (data, http) = try await exchange.exchange(request)
        } catch let error as CustosError {
            throw error
        } catch {
            throw CustosError.transport(error.localizedDescription)
        }
        observer?.observe(data)
        guard (200..<300).contains(http.statusCode) else {
            // An error answer's body may carry a contract status (153, 110): it becomes the
            // error's `longErrorCode` in place of the HTTP status.
            let contractStatus = AnsweredStatus(data)?.statusCode.rawValue
            if let envelope = try? JSONDecoder().decode(ErrorEnvelope.self, from: data) {
                var error = CustosError.server(status: http.statusCode, code: envelope.error.code, message: envelope.error.message,
                                               contractStatus: contractStatus)
                error.retryAfterSeconds = http.value(forHTTPHeaderField: "Retry-After").flatMap { Int($0) }.map { min(300, max(1, $0)) }
                throw error
            }
            // The OAuth endpoints answer errors in OAuth's own format.
            if let oauth = try? JSONDecoder().decode(OAuthErrorResponse.self, from: data) {
                throw CustosError.server(status: http.statusCode, code: oauth.error, message: oauth.errorDescription ?? oauth.error)
            }
            throw CustosError.server(status: http.statusCode, code: "http_\(http.statusCode)",
                                     message: HTTPURLResponse.localizedString(forStatusCode: http.statusCode),
                                     contractStatus: contractStatus)
        }
        return (data, http)
    }
}
