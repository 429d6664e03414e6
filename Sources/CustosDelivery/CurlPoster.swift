import CustosCurl
import Foundation

/// POSTs a webhook through the project's libcurl client (`CurlClient`): redirects never
/// followed, only http and https, no proxy, the connection made to the addresses the callback
/// was checked at, and connect and total time limits. A blocking call on the caller's thread
/// (the dispatcher runs deliveries on its own threads); the answer's body is not read.
struct CurlPoster {
    let connectTimeout: TimeInterval
    let totalTimeout: TimeInterval

    /// One connection per delivery: a receiver's connection is never kept for the next.
    private static let client = CurlClient(reusesConnections: false)

    /// The answer's status, or why there was none.
    func post(_ url: String, pinned callback: CallbackURLPolicy.CheckedCallback, headers: [(String, String)], body: Data) -> (Int?, String?) {
        guard !body.isEmpty else { return (nil, "empty body") }
        // An address literal names itself: nothing to resolve, nothing to re-point.
        let pinned = callback.isAddressLiteral ? nil : (host: callback.host, port: callback.port, addresses: callback.addresses)
        let request = CurlRequest(method: "POST", url: url, headers: headers.map { (name: $0.0, value: $0.1) }, body: body,
                                  connectTimeout: connectTimeout, totalTimeout: totalTimeout, pinned: pinned,
                                  userAgent: "Custos-Webhook/1", readsAnswer: false)
        do {
            let answer = try Self.client.perform(request)
            return (answer.status, (200..<300).contains(answer.status) ? nil : "HTTP \(answer.status)")
        } catch {
            return (nil, error.reason)
        }
    }
}
