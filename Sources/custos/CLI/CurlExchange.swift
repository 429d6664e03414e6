import CCurl
import CustosSDK
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `HTTPExchange` over libcurl's easy interface, one blocking transfer on a thread of its own,
/// for the benchmarks' clients. On Linux, URLSession drives its transfers from libdispatch's
/// event loop, which keeps waking while it waits for an answer (poll, eventfd): measured under
/// `bench idv`, that loop was most of a client using 4.6 s of CPU in 5 s, time taken from the
/// server it shares the cores with. Handles are kept between requests, so their connections
/// stay open (keep-alive).
final class CurlExchange: HTTPExchange, @unchecked Sendable {
    static let shared = CurlExchange()

    private static let initialised: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK
    private let lock = NSLock()
    private var idle: [UnsafeMutableRawPointer] = []
    /// The body of a request that has none but a method that sends one (libcurl would otherwise read stdin).
    nonisolated(unsafe) private static let noBody: UnsafeMutablePointer<CChar> = strdup("")

    func exchange(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try self.perform(request) }) }.start()
        }
    }

    private func perform(_ request: URLRequest) throws -> (Data, HTTPURLResponse) {
        guard let url = request.url else { throw URLError(.badURL) }
        guard Self.initialised, let handle = take() else { throw URLError(.cannotConnectToHost) }
        var reusable = false
        defer { give(handle, reusable: reusable) }
        var headerList: UnsafeMutablePointer<curl_slist>?
        // No "Expect: 100-continue" wait before a body.
        for (name, value) in (request.allHTTPHeaderFields ?? [:]) where name.caseInsensitiveCompare("Expect") != .orderedSame {
            headerList = curl_slist_append(headerList, "\(name): \(value)")
        }
        headerList = curl_slist_append(headerList, "Expect:")
        defer { curl_slist_free_all(headerList) }
        let answer = Answer()
        let method = request.httpMethod ?? "GET"
        let body = request.httpBody ?? Data()
        let context = Unmanaged.passUnretained(answer).toOpaque()
        let code: CURLcode = body.withUnsafeBytes { bytes in
            var settings: [CURLcode] = [
                custos_curl_set_string(handle, CURLOPT_URL, url.absoluteString),
                custos_curl_set_long(handle, CURLOPT_NOSIGNAL, 1),
                custos_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 0),
                custos_curl_set_long(handle, CURLOPT_TIMEOUT_MS, Self.milliseconds(request.timeoutInterval)),
                custos_curl_set_list(handle, CURLOPT_HTTPHEADER, headerList),
                custos_curl_set_body_sink(handle, { data, size, count, context in
                    guard let data, let context else { return 0 }
                    Unmanaged<Answer>.fromOpaque(context).takeUnretainedValue().body.append(UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: size * count)
                    return size * count
                }, context),
                custos_curl_set_header_sink(handle, { data, size, count, context in
                    guard let data, let context else { return 0 }
                    let line = String(decoding: UnsafeRawBufferPointer(start: data, count: size * count), as: UTF8.self)
                    Unmanaged<Answer>.fromOpaque(context).takeUnretainedValue().header(line)
                    return size * count
                }, context),
            ]
            if !body.isEmpty || method != "GET" && method != "DELETE" && method != "HEAD" {
                settings.append(custos_curl_set_body(handle, bytes.baseAddress.map { UnsafeRawPointer($0) } ?? UnsafeRawPointer(Self.noBody), bytes.count))
            }
            if method != "GET" && method != "POST" { settings.append(custos_curl_set_string(handle, CURLOPT_CUSTOMREQUEST, method)) }
            if let failed = settings.first(where: { $0 != CURLE_OK }) { return failed }
            return curl_easy_perform(handle)
        }
        guard code == CURLE_OK else {
            let reason = String(cString: curl_easy_strerror(code))
            throw URLError(code == CURLE_OPERATION_TIMEDOUT ? .timedOut : .cannotConnectToHost, userInfo: [NSLocalizedDescriptionKey: reason])
        }
        var status = 0
        guard custos_curl_response_code(handle, &status) == CURLE_OK, status > 0,
              let response = HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: answer.headers) else {
            throw URLError(.badServerResponse)
        }
        reusable = true
        return (answer.body, response)
    }

    /// libcurl's total time limit for `seconds` (0, none, for a value that is not a positive finite time).
    static func milliseconds(_ seconds: TimeInterval) -> Int {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return Int(min(seconds, 86_400) * 1000)
    }

    private func take() -> UnsafeMutableRawPointer? {
        if let handle = lock.withLock({ idle.popLast() }) {
            curl_easy_reset(handle)
            return handle
        }
        return curl_easy_init()
    }

    private func give(_ handle: UnsafeMutableRawPointer, reusable: Bool) {
        guard reusable else { curl_easy_cleanup(handle); return }
        lock.withLock { idle.append(handle) }
    }

    /// What came back: the header fields of the final answer (an interim 100 starts them over) and the body.
    private final class Answer {
        var body = Data()
        var headers: [String: String] = [:]

        func header(_ line: String) {
            if line.hasPrefix("HTTP/") { headers = [:]; return }
            guard let colon = line.firstIndex(of: ":") else { return }
            let name = String(line[..<colon]).trimmingCharacters(in: .whitespaces)
            let value = String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespacesAndNewlines)
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
    }
}
