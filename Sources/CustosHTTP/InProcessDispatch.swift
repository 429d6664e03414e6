import Foundation

/// A request answered without a socket, for tests of what lies behind the transport: the same
/// steps a connection's request takes once libmicrohttpd has read it — the path and query
/// decoded as `StrictUnescape` decodes them, the limits, upload admission with its preflight,
/// routing, the worker pool (503 `server_busy` when full), error styling, metrics, the access
/// log and the answer's own headers. What it leaves out is libmicrohttpd's: connections,
/// keep-alive, timeouts, and the headers it adds (`Date`, `Content-Length`).
extension HTTPServer {
    /// Answers `target` (path and query, percent-encoded as on the wire) from `peer`.
    public func respond(method: String, target: String, headers: HTTPHeaders, body: Data,
                        peer: RemoteAddress? = RemoteAddress(parsing: "127.0.0.1")) async -> Response {
        let pending = PendingRequest()
        metrics.requestStarted()
        defer {
            uploadMemory.release(pending.reservedBytes, for: pending.reservedBy)
            metrics.requestFinished()
        }
        let (rawPath, rawQuery) = Self.split(target)
        let query = Self.decodedQuery(rawQuery)
        let request = Request(method: HTTPMethod(rawValue: method), path: Self.decoded(rawPath), query: Self.firstValues(query),
                              headers: headers, body: body, requestID: RequestID.make(clientValue: headers["X-Request-Id"]),
                              remoteAddress: clientAddress(peer: peer, headers))
        if body.count > configuration.maxBodyBytes {
            admitUpload(pending, declared: body.count, method: request.method, path: request.path) { request }
        }
        let routed = routed(request, rejection: pending.rejection, query: query)
        let (response, route): (Response, Router.Route?)
        switch routed {
        case .answer(let answer, let answeredBy):
            (response, route) = (answer, answeredBy)
        case .work(let worker, let request):
            guard workers.reserve() else {
                (response, route) = (.error(.serverBusy), worker)
                break
            }
            let answer = await withCheckedContinuation { (continuation: CheckedContinuation<Response?, Never>) in
                // Refused once the pool stopped (between the reservation and now): nothing would run it.
                guard workers.run({ [self] in continuation.resume(returning: run(worker, request)) }) else {
                    continuation.resume(returning: nil)
                    return
                }
            }
            (response, route) = (answer ?? .error(.serverStopping), worker)
        }
        var sent = Self.sent(record(response, route: route, method: method, pending: pending, requestID: request.requestID),
                             requestID: request.requestID)
        if request.method == .head { sent.body = Data() }
        return sent
    }

    /// The answer with the headers `queue` adds to every answer on a connection, less those
    /// libmicrohttpd drops (an empty value, or one with a CR or LF).
    static func sent(_ response: Response, requestID: String) -> Response {
        var sent = response
        sent.headers = HTTPHeaders(response.headers.filter { field in
            !field.value.isEmpty && !field.value.utf8.contains { $0 == 0x0D || $0 == 0x0A }
        }.map { ($0.name, $0.value) })
        sent.headers.set("X-Request-Id", requestID)
        if sent.headers["Cache-Control"] == nil { sent.headers.add("Cache-Control", Response.uncachedDirective.description) }
        return sent
    }

    /// The path and the query of a request target, split at the first `?`.
    static func split(_ target: String) -> (path: Substring, query: Substring?) {
        guard let mark = target.firstIndex(of: "?") else { return (target[...], nil) }
        return (target[..<mark], target[target.index(after: mark)...])
    }

    /// The query's arguments as libmicrohttpd parses them: split at `&` (an empty piece is an
    /// argument with an empty name), then at the first `=`, `+` read as a space, each part decoded.
    static func decodedQuery(_ query: Substring?) -> HTTPHeaders {
        var values = HTTPHeaders()
        guard let query, !query.isEmpty else { return values }
        for argument in query.split(separator: "&", omittingEmptySubsequences: false) {
            let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = parts[0].replacingOccurrences(of: "+", with: " ")
            let value = parts.count > 1 ? parts[1].replacingOccurrences(of: "+", with: " ") : ""
            values.add(decoded(name[...]), decoded(value[...]))
        }
        return values
    }

    /// `StrictUnescape.decode` of `text`.
    static func decoded(_ text: Substring) -> String {
        var bytes = Array(text.utf8) + [0]
        let count = bytes.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.map { StrictUnescape.decode($0) } ?? 0
        }
        return String(decoding: bytes[..<count], as: UTF8.self)
    }
}
