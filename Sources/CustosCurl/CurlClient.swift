import CCurl
import Foundation

/// One request for `CurlClient`.
public struct CurlRequest: Sendable {
    public var method: String
    public var url: String
    public var headers: [(name: String, value: String)]
    public var body: Data
    /// Time to connect, and for the whole exchange; nil: libcurl's own (none for the total).
    public var connectTimeout: TimeInterval?
    public var totalTimeout: TimeInterval?
    /// Connect to these addresses for the host name `host` at `port` instead of resolving it
    /// (the addresses a callback was checked at), so the name cannot be re-pointed between the
    /// check and the call. For host names only: curl's resolve list cannot hold an IPv6 literal.
    public var pinned: (host: String, port: Int, addresses: [String])?
    public var userAgent: String?
    /// Whether the answer's header fields and body are read (a webhook's are not: its status is
    /// all that counts, and a hostile receiver's headers cost nothing unread).
    public var readsAnswer: Bool

    public init(method: String = "GET", url: String, headers: [(name: String, value: String)] = [], body: Data = Data(),
                connectTimeout: TimeInterval? = nil, totalTimeout: TimeInterval? = nil,
                pinned: (host: String, port: Int, addresses: [String])? = nil, userAgent: String? = nil, readsAnswer: Bool = true) {
        (self.method, self.url, self.headers, self.body) = (method, url, headers, body)
        (self.connectTimeout, self.totalTimeout, self.pinned, self.userAgent, self.readsAnswer) = (connectTimeout, totalTimeout, pinned, userAgent, readsAnswer)
    }
}

/// What came back: the final answer's status, and its header fields (an interim 100 starts them
/// over) and body when read.
public struct CurlAnswer: Sendable {
    public let status: Int
    public let headers: [String: String]
    public let body: Data
}

/// Why no answer came.
public struct CurlFailure: Error, Sendable, CustomStringConvertible {
    public let reason: String
    /// The time limit ran out (rather than a refused or broken connection).
    public let timedOut: Bool
    public var description: String { reason }
}

/// The project's one HTTP client over libcurl's easy interface: a blocking exchange on the
/// caller's thread. Every request goes straight to its host (no proxy from the environment,
/// which would make a pinned address meaningless), over http or https only, never following a
/// redirect, without libcurl's signals (threads) and without an `Expect: 100-continue` wait.
///
/// libcurl rather than URLSession: on Linux, Foundation's URLSession traps (a fatal error that
/// ends the process) when a redirect decision arrives after its task timed out — something a
/// slow or hostile webhook receiver can cause — and it cannot pin the addresses it connects to;
/// and it drives its transfers from libdispatch's event loop, which keeps waking while it waits
/// (measured under `bench idv`: most of a client's 4.6 s of CPU in 5 s, taken from the server
/// sharing the cores).
public final class CurlClient: @unchecked Sendable {
    /// libcurl's one-time global set-up, before any thread uses it.
    private static let initialised: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK
    /// The body of a request that has none but a method that sends one (libcurl would otherwise read stdin).
    nonisolated(unsafe) private static let noBody: UnsafeMutablePointer<CChar> = strdup("")

    private let reusesConnections: Bool
    private let lock = NSLock()
    private var idle: [UnsafeMutableRawPointer] = []

    /// `reusesConnections`: handles (and their open connections) are kept between requests. A
    /// pinned request never takes or leaves one: a kept handle's DNS cache holds earlier pins, and
    /// its connections are reused by host and port, not by the address they were made to.
    public init(reusesConnections: Bool) {
        self.reusesConnections = reusesConnections
    }

    deinit {
        for handle in idle { curl_easy_cleanup(handle) }
    }

    public func perform(_ request: CurlRequest) throws(CurlFailure) -> CurlAnswer {
        let pooled = reusesConnections && request.pinned == nil
        guard Self.initialised, let handle = take(pooled: pooled) else { throw CurlFailure(reason: "libcurl could not start", timedOut: false) }
        var reusable = false
        defer { give(handle, pooled: pooled && reusable) }
        var headerList: UnsafeMutablePointer<curl_slist>?
        for (name, value) in request.headers where name.caseInsensitiveCompare("Expect") != .orderedSame {
            headerList = curl_slist_append(headerList, "\(name): \(value)")
        }
        headerList = curl_slist_append(headerList, "Expect:")
        defer { curl_slist_free_all(headerList) }
        let resolve = request.pinned.flatMap { pin in curl_slist_append(nil, "\(pin.host):\(pin.port):\(pin.addresses.joined(separator: ","))") }
        defer { curl_slist_free_all(resolve) }
        let received = Received()
        let context = Unmanaged.passUnretained(received).toOpaque()
        let method = request.method
        let code: CURLcode = request.body.withUnsafeBytes { bytes in
            var settings: [CURLcode] = [
                custos_curl_set_string(handle, CURLOPT_URL, request.url),
                custos_curl_set_long(handle, CURLOPT_NOSIGNAL, 1),
                custos_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 0),
                custos_curl_set_string(handle, CURLOPT_PROXY, ""),
                custos_curl_set_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"),
                custos_curl_set_list(handle, CURLOPT_HTTPHEADER, headerList),
            ]
            if request.readsAnswer {
                settings.append(custos_curl_set_header_sink(handle, { data, size, count, context in
                    guard let data, let context else { return 0 }
                    let line = String(decoding: UnsafeRawBufferPointer(start: data, count: size * count), as: UTF8.self)
                    Unmanaged<Received>.fromOpaque(context).takeUnretainedValue().header(line)
                    return size * count
                }, context))
                settings.append(custos_curl_set_body_sink(handle, { data, size, count, context in
                    guard let data, let context else { return 0 }
                    Unmanaged<Received>.fromOpaque(context).takeUnretainedValue().body
                        .append(UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: size * count)
                    return size * count
                }, context))
            } else {
                settings.append(custos_curl_discard_body(handle))
            }
            if let seconds = request.connectTimeout { settings.append(custos_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(seconds))) }
            if let seconds = request.totalTimeout { settings.append(custos_curl_set_long(handle, CURLOPT_TIMEOUT_MS, Self.milliseconds(seconds))) }
            if let resolve { settings.append(custos_curl_set_list(handle, CURLOPT_RESOLVE, resolve)) }
            if let agent = request.userAgent { settings.append(custos_curl_set_string(handle, CURLOPT_USERAGENT, agent)) }
            if !request.body.isEmpty || !["GET", "DELETE", "HEAD"].contains(method) {
                settings.append(custos_curl_set_body(handle, bytes.baseAddress ?? UnsafeRawPointer(Self.noBody), bytes.count))
            }
            if method != "GET" && method != "POST" { settings.append(custos_curl_set_string(handle, CURLOPT_CUSTOMREQUEST, method)) }
            if let failed = settings.first(where: { $0 != CURLE_OK }) { return failed }
            return curl_easy_perform(handle)
        }
        guard code == CURLE_OK else {
            throw CurlFailure(reason: String(cString: curl_easy_strerror(code)), timedOut: code == CURLE_OPERATION_TIMEDOUT)
        }
        var status = 0
        guard custos_curl_response_code(handle, &status) == CURLE_OK, status > 0 else { throw CurlFailure(reason: "no answer", timedOut: false) }
        reusable = true
        return CurlAnswer(status: status, headers: received.headers, body: received.body)
    }

    /// libcurl's limit for `seconds` in milliseconds (0, none, for a value that is not a positive finite time).
    static func milliseconds(_ seconds: TimeInterval) -> Int {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return Int(min(seconds, 86_400) * 1000)
    }

    private func take(pooled: Bool) -> UnsafeMutableRawPointer? {
        if pooled, let handle = lock.withLock({ idle.popLast() }) {
            curl_easy_reset(handle)
            return handle
        }
        return curl_easy_init()
    }

    private func give(_ handle: UnsafeMutableRawPointer, pooled: Bool) {
        guard pooled else { curl_easy_cleanup(handle); return }
        lock.withLock { idle.append(handle) }
    }

    /// What the sinks were handed.
    private final class Received {
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
