import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends one HTTP request and returns the server's answer, whatever its status. The SDK's
/// clients use `URLSessionExchange` unless given another: an app's own session (certificate
/// pinning, a proxy), or a test's recorded answers.
public protocol HTTPExchange: Sendable {
    /// Throws only when no answer came (refused, timed out, DNS, TLS).
    func exchange(_ request: URLRequest) async throws -> (Data, HTTPURLResponse)
}

/// `HTTPExchange` over a `URLSession` (`URLSession.shared` by default).
public struct URLSessionExchange: HTTPExchange {
    let session: URLSession

    public init(session: URLSession = .shared) {
        self.session = session
    }

    public func exchange(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw CustosError.invalidResponse("not an HTTP response") }
        return (data, http)
    }
}
