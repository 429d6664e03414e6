import CustosCurl
import CustosSDK
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `HTTPExchange` over the project's libcurl client (`CurlClient`), one blocking transfer on a
/// thread of its own, for the benchmarks' clients: URLSession's event loop on Linux would take
/// the CPU from the server they share the cores with. Connections stay open between requests.
final class CurlExchange: HTTPExchange, Sendable {
    static let shared = CurlExchange()

    private let client = CurlClient(reusesConnections: true)

    func exchange(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try self.perform(request) }) }.start()
        }
    }

    private func perform(_ request: URLRequest) throws -> (Data, HTTPURLResponse) {
        guard let url = request.url else { throw URLError(.badURL) }
        let headers = (request.allHTTPHeaderFields ?? [:]).map { (name: $0.key, value: $0.value) }
        let answer: CurlAnswer
        do {
            answer = try client.perform(CurlRequest(method: request.httpMethod ?? "GET", url: url.absoluteString, headers: headers,
                                                    body: request.httpBody ?? Data(), totalTimeout: request.timeoutInterval))
        } catch {
            throw URLError(error.timedOut ? .timedOut : .cannotConnectToHost, userInfo: [NSLocalizedDescriptionKey: error.reason])
        }
        guard let response = HTTPURLResponse(url: url, statusCode: answer.status, httpVersion: "HTTP/1.1", headerFields: answer.headers) else {
            throw URLError(.badServerResponse)
        }
        return (answer.body, response)
    }
}
