import CMicroHTTPD
import Foundation
import Synchronization

/// An HTTP/1.1 server on libmicrohttpd: a pool of threads each running an epoll loop,
/// keep-alive, limits, JSON errors, request ids, an access log and metrics.
///
/// Handlers run on the pool's threads and may block. Nothing else in the project touches
/// libmicrohttpd.
public final class HTTPServer: Sendable {
    public let configuration: HTTPServerConfiguration
    public let metrics: HTTPMetrics
    let router: Router
    let logger: Logger
    let errorMapper: @Sendable (any Error) -> HTTPError?
    let errorStyle: @Sendable (_ path: String, HTTPError) -> HTTPError
    let workers: WorkerPool
    /// What upload bodies being received may hold (`HTTPServerConfiguration.uploadMemoryBytes`).
    let uploadMemory: UploadMemory
    /// Cuts off connections slow to send a request's headers (nil: no bound).
    let headerDeadline: HeaderDeadline?

    private struct Running: @unchecked Sendable {
        let daemon: OpaquePointer
        let port: Int
    }
    private let running = Mutex<Running?>(nil)
    /// Connections suspended while a worker runs their handler. libmicrohttpd must not be
    /// stopped with one still suspended (it aborts the process), so `stop()` answers those
    /// left after the grace with 503 `server_stopping` and closes this for new ones; a
    /// handler that ends later finds its entry gone and resumes nothing.
    private struct Suspensions {
        var open = true
        var waiting: [ObjectIdentifier: (connection: SuspendedConnection, pending: PendingRequest, requestID: String)] = [:]
    }
    private let suspensions = Mutex(Suspensions())

    /// - Parameter errorMapper: turns errors thrown by handlers into answers (e.g. a store
    ///   outage into 503). Errors it does not map, and that are not `HTTPError`, become 500
    ///   with a generic message; their detail goes to the log only.
    /// - Parameter errorStyle: restyles an error answer for the path it answers, the request's
    ///   own errors included (a malformed query or body, found before any handler ran): e.g. an
    ///   OAuth endpoint's errors in OAuth's error body.
    public init(configuration: HTTPServerConfiguration, router: Router, logger: Logger,
                metrics: HTTPMetrics = HTTPMetrics(),
                errorMapper: @escaping @Sendable (any Error) -> HTTPError? = { _ in nil },
                errorStyle: @escaping @Sendable (_ path: String, HTTPError) -> HTTPError = { $1 }) {
        self.configuration = configuration
        self.router = router
        self.logger = logger
        self.metrics = metrics
        self.errorMapper = errorMapper
        self.errorStyle = errorStyle
        workers = WorkerPool(workers: configuration.workers, queueLimit: configuration.queueLimit)
        uploadMemory = UploadMemory(total: configuration.uploadMemoryBytes, perCaller: configuration.uploadMemoryPerCallerBytes)
        headerDeadline = configuration.headerDeadlineSeconds > 0 ? HeaderDeadline(limitSeconds: configuration.headerDeadlineSeconds,
                                                                                 idleTimeoutSeconds: configuration.connectionTimeoutSeconds, logger: logger) : nil
    }

    deinit {
        if let state = running.withLock({ $0 }) {
            MHD_stop_daemon(state.daemon)
        }
        workers.stop()
    }

    /// Allocations from 256 KiB up (upload bodies, decoded images) get mappings of their own,
    /// given back to the system when freed: glibc's threshold otherwise rises with each large
    /// block freed, and the memory of a burst of uploads stays with the process.
    private static let largeAllocationsMapped: Bool = mallopt(M_MMAP_THRESHOLD, 256 * 1024) == 1

    /// The port being listened on, once started.
    public var port: Int? { running.withLock { $0?.port } }

    /// Binds, listens and starts the worker threads. Throws when the address is unavailable.
    public func start() throws {
        _ = Self.largeAllocationsMapped
        let socket = try ListenSocket.open(host: configuration.host, port: configuration.port)
        // Suspend/resume: a handler runs on a worker while its connection waits off the loop.
        let flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue | MHD_USE_ITC.rawValue
            | MHD_USE_TURBO.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
        // The context outlives the daemon: `stop()` (or deinit) stops the daemon first.
        let context = Unmanaged.passUnretained(self).toOpaque()
        let options: [CVarArg] = [
            MHD_OPTION.LISTEN_SOCKET.rawValue, socket.descriptor,
            MHD_OPTION.THREAD_POOL_SIZE.rawValue, UInt32(max(1, configuration.threads)),
            MHD_OPTION.CONNECTION_LIMIT.rawValue, UInt32(max(1, configuration.maxConnections)),
            MHD_OPTION.PER_IP_CONNECTION_LIMIT.rawValue, UInt32(max(0, configuration.maxConnectionsPerIP)),
            MHD_OPTION.CONNECTION_TIMEOUT.rawValue, UInt32(max(0, configuration.connectionTimeoutSeconds)),
            // Room for the request line and headers we accept, plus read buffering; anything
            // beyond our own URL/header limits is refused by libmicrohttpd itself.
            MHD_OPTION.CONNECTION_MEMORY_LIMIT.rawValue,
            Int(configuration.maxURLBytes + configuration.maxHeaderBytes + 16 * 1024),
            MHD_OPTION.NOTIFY_CONNECTION.rawValue, unsafeBitCast(connectionNotified, to: OpaquePointer.self), OpaquePointer(context),
            MHD_OPTION.NOTIFY_COMPLETED.rawValue, unsafeBitCast(requestCompleted, to: OpaquePointer.self), OpaquePointer(context),
            // The path is what it says: no %00 or control character decodes into it (StrictUnescape).
            MHD_OPTION.UNESCAPE_CALLBACK.rawValue, unsafeBitCast(StrictUnescape.callback, to: OpaquePointer.self), OpaquePointer(context),
            MHD_OPTION.END.rawValue,
        ]
        let daemon = withVaList(options) { arguments in
            MHD_start_daemon_va(flags, 0, nil, nil, accessHandler, context, arguments)
        }
        guard let daemon else {
            close(socket.descriptor)
            throw HTTPError(status: 500, code: "server_start_failed", message: "libmicrohttpd refused to start")
        }
        running.withLock { $0 = Running(daemon: daemon, port: socket.port) }
        headerDeadline?.start()
    }

    /// Stops accepting connections, waits up to the grace period for requests in flight to
    /// be answered, then stops the worker threads. Safe to call more than once.
    public func stop() {
        guard let state = running.withLock({ state -> Running? in defer { state = nil }; return state }) else { return }
        // The listen socket is closed only after MHD_stop_daemon: its worker threads may still
        // be taking it out of their epoll sets, and a socket closed under them is a fatal
        // error in libmicrohttpd (abort) — its manual says so for every threaded mode.
        let listener = MHD_quiesce_daemon(state.daemon)
        // Not closed, but no longer listening: the kernel refuses new connections (and resets
        // those queued, never accepted) instead of queueing them for the whole grace, so a load
        // balancer sees at once that this node is going. A moment first for the event loops to
        // drop the socket from their sets, as the quiesce asked them to.
        if listener >= 0 {
            usleep(50_000)
            shutdown(listener, Int32(SHUT_RD))
        }
        let deadline = Date().addingTimeInterval(configuration.shutdownGraceSeconds)
        while metrics.inFlight > 0 && Date() < deadline {
            usleep(5_000)
        }
        let abandoned = metrics.inFlight
        suspensions.withLock { state in
            state.open = false
            for entry in state.waiting.values {
                entry.pending.answer.withLock { $0 = PendingRequest.Answer(.error(.serverStopping), entry.requestID) }
                MHD_resume_connection(entry.connection.connection)
            }
            state.waiting = [:]
        }
        // A moment for the event loops to send those answers before the connections close.
        let answered = Date().addingTimeInterval(0.5)
        while metrics.inFlight > 0 && Date() < answered {
            usleep(2_000)
        }
        MHD_stop_daemon(state.daemon)
        headerDeadline?.stop()
        if listener >= 0 { close(listener) }
        workers.stop()
        logger.info("http_stopped", ["abandoned_requests": .int(abandoned)])
    }

    // MARK: Dispatch

    func run(_ route: Router.Route, _ request: Request) -> Response {
        do {
            return try route.handler(request)
        } catch let error as HTTPError {
            return .error(errorStyle(request.path, error))
        } catch {
            let mapped = errorMapper(error)
            // A refusal under load (503 server_busy) is shed work, counted in /metrics, not a fault.
            if mapped.map({ $0.status >= 500 && $0.code != HTTPError.serverBusy.code }) ?? true {
                logger.error(mapped == nil ? "unhandled_error" : "request_failed",
                             ["request_id": .string(request.requestID), "route": .string(route.pattern),
                              "error": .string(String(describing: error))])
            }
            return .error(errorStyle(request.path, mapped ?? .internalError))
        }
    }
}

/// State of one request across libmicrohttpd's calls to the access handler.
final class PendingRequest: @unchecked Sendable {
    var body = Data()
    var rejection: HTTPError?
    let startNanos = DispatchTime.now().uptimeNanoseconds
    /// The body limit of the request's route, once the body outgrew the ordinary one.
    var uploadLimit: Int?
    /// The upload memory reserved for the body, and whose it is (`UploadMemory`).
    var reservedBytes = 0
    var reservedBy = ""
    /// Set by the worker that ran the handler, before it resumes the connection. A reference,
    /// so that the empty slot every inline request carries is freed without generic code.
    let answer = Mutex<Answer?>(nil)

    final class Answer: Sendable {
        let response: Response
        let requestID: String

        init(_ response: Response, _ requestID: String) {
            self.response = response
            self.requestID = requestID
        }
    }
}

/// A suspended connection, for the worker that resumes it.
private struct SuspendedConnection: @unchecked Sendable {
    let connection: OpaquePointer
}

private let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, uploadData, uploadDataSize, connectionContext in
    guard let cls, let connection, let connectionContext, let uploadDataSize else { return MHD_Result.NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()

    // First call: headers are in. Answering now would make libmicrohttpd close the
    // connection, so keep-alive needs the answer on a later call.
    guard let existing = connectionContext.pointee else {
        let pending = PendingRequest()
        server.metrics.requestStarted()
        server.headerDeadline?.requestStarted(connection)
        if let declared = lookupHeader(connection, "Content-Length").flatMap({ Int($0) }),
           declared > server.configuration.maxBodyBytes {
            server.admitUpload(pending, declared: declared, connection: connection, url: url, method: method)
        }
        connectionContext.pointee = Unmanaged.passRetained(pending).toOpaque()
        return MHD_Result.YES
    }
    let pending = Unmanaged<PendingRequest>.fromOpaque(existing).takeUnretainedValue()

    if uploadDataSize.pointee > 0 {
        let size = uploadDataSize.pointee
        // Past the deadline the connection is closed mid-body: there is no answer a client
        // still sending could read.
        let elapsed = DispatchTime.now().uptimeNanoseconds - pending.startNanos
        if elapsed > UInt64(server.configuration.requestDeadlineSeconds) * 1_000_000_000 {
            server.logger.warning("request_deadline", ["seconds": .int(server.configuration.requestDeadlineSeconds)])
            return MHD_Result.NO
        }
        if pending.rejection == nil {
            // The route is looked up only once a body outgrows the ordinary limit.
            if pending.body.count + size > server.configuration.maxBodyBytes, pending.uploadLimit == nil {
                server.admitUpload(pending, declared: nil, connection: connection, url: url, method: method)
            }
            let limit = pending.uploadLimit ?? server.configuration.maxBodyBytes
            if pending.rejection != nil {
                pending.body = Data()
            } else if pending.body.count + size > limit {
                pending.rejection = .payloadTooLarge(limit: limit)
                pending.body = Data()
            } else if let uploadData {
                pending.body.append(UnsafeRawPointer(uploadData).assumingMemoryBound(to: UInt8.self), count: size)
            }
        }
        uploadDataSize.pointee = 0
        return MHD_Result.YES
    }

    // Resumed after a worker ran the handler.
    if let answer = pending.answer.withLock({ $0 }) {
        return queue(answer.response, requestID: answer.requestID, on: connection)
    }
    let methodName = method.map { String(cString: $0) } ?? "GET"
    return server.handle(connection: connection, url: url, method: methodName, pending: pending)
}

private let requestCompleted: MHD_RequestCompletedCallback = { cls, connection, connectionContext, _ in
    guard let cls, let connectionContext, let existing = connectionContext.pointee else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    if let connection { server.headerDeadline?.requestEnded(connection) }
    let pending = Unmanaged<PendingRequest>.fromOpaque(existing)
    server.uploadMemory.release(pending.takeUnretainedValue().reservedBytes, for: pending.takeUnretainedValue().reservedBy)
    pending.release()
    connectionContext.pointee = nil
    server.metrics.requestFinished()
}

extension HTTPServer {
    /// Answers at once what needs no handler (a rejection, an unknown route) and the inline
    /// routes; hands every other request to a worker, its connection suspended until the
    /// worker resumes it with the answer; answers 503 `server_busy` when no worker is free
    /// and the queue is full. The answer carries the request id (sent as `X-Request-Id`).
    fileprivate func handle(connection: OpaquePointer, url: UnsafePointer<CChar>?, method: String,
                            pending: PendingRequest) -> MHD_Result {
        let path = url.map { String(cString: $0) } ?? "/"
        let headers = collectValues(connection, kind: .HEADER_KIND)
        let query = collectValues(connection, kind: .GET_ARGUMENT_KIND)
        let request = Request(method: HTTPMethod(rawValue: method), path: path, query: Self.firstValues(query),
                              headers: headers, body: pending.body, requestID: RequestID.make(clientValue: headers["X-Request-Id"]),
                              remoteAddress: clientAddress(peer: RemoteAddress(connection), headers))
        pending.body = Data()

        func answer(_ response: Response, _ route: Router.Route?) -> MHD_Result {
            queue(record(response, route: route, method: method, pending: pending, requestID: request.requestID),
                  requestID: request.requestID, on: connection)
        }
        switch routed(request, rejection: pending.rejection, query: query) {
        case .answer(let response, let route):
            return answer(response, route)
        case .work(let route, let request):
            guard workers.reserve() else { return answer(.error(.serverBusy), route) }
            let key = ObjectIdentifier(pending)
            let admitted = suspensions.withLock { state -> Bool in
                guard state.open else { return false }
                state.waiting[key] = (SuspendedConnection(connection: connection), pending, request.requestID)
                MHD_suspend_connection(connection)
                return true
            }
            guard admitted else {
                workers.cancelReservation()
                return answer(.error(.serverStopping), route)
            }
            workers.run { [self, request] in
                let response = record(run(route, request), route: route, method: method, pending: pending, requestID: request.requestID)
                suspensions.withLock { state in
                    // Gone: `stop()` answered it already.
                    guard let entry = state.waiting.removeValue(forKey: key) else { return }
                    pending.answer.withLock { $0 = PendingRequest.Answer(response, request.requestID) }
                    MHD_resume_connection(entry.connection.connection)
                }
            }
            return MHD_Result.YES
        }
    }

    /// Where a fully read request goes: answered at once (a rejection, no such route, an inline
    /// route), or to a worker with its path parameters.
    enum Routed {
        case answer(Response, Router.Route?)
        case work(Router.Route, Request)
    }

    /// The one routing step of both ways in (a connection, `respond(to:)`).
    func routed(_ request: Request, rejection: HTTPError?, query: HTTPHeaders) -> Routed {
        if let rejection = rejection ?? checkLimits(path: request.path, query: query, headers: request.headers) {
            return .answer(.error(errorStyle(request.path, rejection)), nil)
        }
        switch router.match(request.method, request.path) {
        case .notFound:
            return .answer(.error(.notFound), nil)
        case .methodNotAllowed(let allowed):
            return .answer(.error(.methodNotAllowed(allowed: allowed)), nil)
        case .found(let route, let parameters):
            var request = request
            request.pathParameters = parameters
            return route.runsInline ? .answer(run(route, request), route) : .work(route, request)
        }
    }

    /// The first value of each query argument (a repeated key keeps its first).
    static func firstValues(_ query: HTTPHeaders) -> [String: String] {
        query.count == 0 ? [:] : Dictionary(query.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    /// Decides, once a body outgrows `maxBodyBytes`, how large it may grow: `maxUploadBytes`
    /// for a route that takes uploads and whose preflight (the caller's credential) passes on
    /// the headers alone; a route that does not, or a caller who fails it, is refused before
    /// more is buffered. The preflight is a credential look-up, run here on the event loop once
    /// per large upload.
    ///
    /// An upload admitted reserves its memory (`declared`, or the largest upload when chunked)
    /// from the upload memory before anything more is buffered, and buffers into one allocation
    /// of that size; refused at once when the budget is spent.
    fileprivate func admitUpload(_ pending: PendingRequest, declared: Int?, connection: OpaquePointer, url: UnsafePointer<CChar>?,
                                 method: UnsafePointer<CChar>?) {
        let name = HTTPMethod(rawValue: method.map { String(cString: $0) } ?? "GET")
        let path = url.map { String(cString: $0) } ?? "/"
        admitUpload(pending, declared: declared, method: name, path: path) {
            let headers = collectValues(connection, kind: .HEADER_KIND)
            return Request(method: name, path: path, headers: headers, requestID: RequestID.make(clientValue: headers["X-Request-Id"]),
                           remoteAddress: self.clientAddress(peer: RemoteAddress(connection), headers))
        }
    }

    /// `admitUpload` for a request whose headers are read (its body is not looked at); `request`
    /// is made only for a route that takes uploads.
    func admitUpload(_ pending: PendingRequest, declared: Int?, method: HTTPMethod, path: String, request: () -> Request) {
        guard case .found(let route, let parameters) = router.match(method, path), route.takesUploads else {
            pending.uploadLimit = configuration.maxBodyBytes
            if let declared, declared > configuration.maxBodyBytes { pending.rejection = .payloadTooLarge(limit: configuration.maxBodyBytes) }
            return
        }
        pending.uploadLimit = configuration.maxUploadBytes
        var request = request()
        request.pathParameters = parameters
        if let preflight = route.preflight {
            do {
                try preflight(request)
            } catch let error as HTTPError {
                pending.rejection = error
            } catch {
                pending.rejection = errorMapper(error) ?? .internalError
            }
        }
        guard pending.rejection == nil else { return }
        if let declared, declared > configuration.maxUploadBytes {
            pending.rejection = .payloadTooLarge(limit: configuration.maxUploadBytes)
            return
        }
        let bytes = declared ?? configuration.maxUploadBytes
        let caller = request.remoteAddress?.limitKey ?? "unknown"
        switch uploadMemory.reserve(bytes, for: caller) {
        case nil:
            (pending.reservedBytes, pending.reservedBy) = (bytes, caller)
            pending.body.reserveCapacity(bytes)
        case .server?:
            pending.rejection = .serverBusy
            logger.warning("upload_memory_spent", ["held_bytes": .int(uploadMemory.held)])
        case .caller?:
            pending.rejection = .tooManyUploads
        }
    }

    /// The peer, or the client a trusted proxy forwarded the request for: the last address of
    /// `X-Forwarded-For` across all its lines, the one the proxy itself appended (every earlier
    /// one is the client's own writing). A trusted proxy's request without a readable one is
    /// the proxy's.
    func clientAddress(peer: RemoteAddress?, _ headers: HTTPHeaders) -> RemoteAddress? {
        guard let peer, !configuration.trustedProxies.isEmpty, configuration.trustedProxies.contains(peer) else { return peer }
        return Self.forwardedClient(headers.values("X-Forwarded-For")) ?? peer
    }

    /// The last address of the `X-Forwarded-For` lines.
    static func forwardedClient(_ lines: [String]) -> RemoteAddress? {
        guard let last = lines.last?.split(separator: ",", omittingEmptySubsequences: false).last else { return nil }
        return RemoteAddress(parsing: last)
    }

    /// Counts and logs the answer; returns it.
    func record(_ response: Response, route: Router.Route?, method: String, pending: PendingRequest,
                        requestID: String) -> Response {
        let nanoseconds = DispatchTime.now().uptimeNanoseconds - pending.startNanos
        let seconds = Double(nanoseconds) / 1e9
        if let route {
            metrics.record(route: route, status: response.status, seconds: seconds)
        } else {
            metrics.recordUnmatched(method: method, status: response.status, seconds: seconds)
        }
        logger.access(method: method, route: route?.pattern ?? "unmatched", status: response.status,
                      durationMicroseconds: Int(nanoseconds / 1000), requestID: requestID)
        return response
    }

    func checkLimits(path: String, query: HTTPHeaders, headers: HTTPHeaders) -> HTTPError? {
        if StrictUnescape.wasRejected(path) || query.contains(where: { StrictUnescape.wasRejected($0.name) || StrictUnescape.wasRejected($0.value) }) {
            return HTTPError(status: 400, code: "invalid_path",
                             message: "The request path or query holds a NUL, a control character or a malformed percent-escape.")
        }
        let urlBytes = path.utf8.count + query.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 2 }
        if urlBytes > configuration.maxURLBytes {
            return HTTPError(status: 414, code: "uri_too_long", message: "The request URI exceeds \(configuration.maxURLBytes) bytes.")
        }
        let headerBytes = headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
        if headerBytes > configuration.maxHeaderBytes {
            return HTTPError(status: 431, code: "headers_too_large", message: "The request headers exceed \(configuration.maxHeaderBytes) bytes.")
        }
        return nil
    }
}

private func queue(_ response: Response, requestID: String, on connection: OpaquePointer) -> MHD_Result {
    let mhdResponse = response.body.withUnsafeBytes { raw in
        MHD_create_response_from_buffer(raw.count, UnsafeMutableRawPointer(mutating: raw.baseAddress), .RESPMEM_MUST_COPY)
    }
    guard let mhdResponse else { return MHD_Result.NO }
    // Names and values go to C through withCString (a short string is copied on the stack),
    // never String's implicit conversion, which allocates a C copy of each.
    for field in response.headers where !field.name.caseInsensitiveEquals("X-Request-Id") {
        field.name.withCString { name in field.value.withCString { value in _ = MHD_add_response_header(mhdResponse, name, value) } }
    }
    requestID.withCString { _ = MHD_add_response_header(mhdResponse, cString("X-Request-Id"), $0) }
    if response.headers["Cache-Control"] == nil {
        _ = MHD_add_response_header(mhdResponse, cString("Cache-Control"), cString(Response.uncachedDirective))
    }
    let result = MHD_queue_response(connection, UInt32(response.status), mhdResponse)
    MHD_destroy_response(mhdResponse)
    return result
}

private func lookupHeader(_ connection: OpaquePointer, _ name: StaticString) -> String? {
    MHD_lookup_connection_value(connection, .HEADER_KIND, cString(name)).map { String(cString: $0) }
}

/// A literal as a C string, without a copy (literals are stored NUL-terminated).
private func cString(_ text: StaticString) -> UnsafePointer<CChar> {
    UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self)
}

private func collectValues(_ connection: OpaquePointer, kind: MHD_ValueKind) -> HTTPHeaders {
    // Counting first is cheap and spares the work for the common empty case (no query).
    let count = Int(MHD_get_connection_values(connection, kind, nil, nil))
    var values = HTTPHeaders(capacity: count)
    guard count > 0 else { return values }
    withUnsafeMutablePointer(to: &values) { pointer in
        _ = MHD_get_connection_values(connection, kind, { cls, _, key, value in
            guard let cls, let key else { return MHD_Result.YES }
            cls.assumingMemoryBound(to: HTTPHeaders.self).pointee.add(String(cString: key), value.map { String(cString: $0) } ?? "")
            return MHD_Result.YES
        }, pointer)
    }
    return values
}

extension RemoteAddress {
    /// The peer of `connection`, copied (formatting waits until someone asks).
    init?(_ connection: OpaquePointer) {
        guard let info = custos_mhd_connection_info(connection, .CONNECTION_INFO_CLIENT_ADDRESS),
              let address = info.pointee.client_addr else { return nil }
        self.init(address)
    }
}
