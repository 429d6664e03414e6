import CustosAPI
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// JSON over HTTP with the three-tier error model: transport failures, then the server's
/// error envelope, then the payload.
struct HTTPTransport: Sendable {
    let baseURL: URL
    let timeout: TimeInterval

    func get<T: Decodable>(_ path: String) async throws -> T {
        try await send(method: "GET", path: path, body: nil)
    }

    private func send<T: Decodable>(method: String, path: String, body: Data?) async throws -> T {
        var request = URLRequest(url: baseURL.appendingPathComponent(path), timeoutInterval: timeout)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
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
        guard (200..<300).contains(http.statusCode) else {
            if let envelope = try? JSONDecoder().decode(ErrorEnvelope.self, from: data) {
                throw CustosError.server(status: http.statusCode, code: envelope.error.code, message: envelope.error.message)
            }
            throw CustosError.server(status: http.statusCode, code: "http_\(http.statusCode)",
                                     message: HTTPURLResponse.localizedString(forStatusCode: http.statusCode))
        }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw CustosError.invalidResponse("the answer to \(method) \(path) could not be decoded")
        }
    }
}
