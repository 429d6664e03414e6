import Foundation

/// Listening address, threads and the limits every request is held to.
public struct HTTPServerConfiguration: Sendable, Equatable {
    public var host: String
    /// 0 picks any free port; `HTTPServer.port` tells which.
    public var port: Int
    /// libmicrohttpd's event-loop threads, each running its own epoll loop. Default: cores × 2.
    public var threads: Int
    /// Threads that run handlers (off the event loops), and how many requests may wait for one.
    public var workers: Int
    public var queueLimit: Int
    /// Larger bodies are refused with 413.
    /// The largest body of an ordinary request (JSON commands)…
    public var maxBodyBytes: Int
    /// …and of a route that takes uploads (`Router.post(_:uploads:_:)`).
    public var maxUploadBytes: Int
    /// Memory that large upload bodies being received may hold at once, all callers together,
    /// and one caller (client address) alone (0: no per-caller budget); past it an upload is
    /// refused before it is buffered (503 `server_busy`, 429 `too_many_uploads`).
    public var uploadMemoryBytes: Int = 256 * 1024 * 1024
    public var uploadMemoryPerCallerBytes: Int = 32 * 1024 * 1024
    /// Path plus query longer than this is refused with 414.
    public var maxURLBytes: Int
    /// Header fields longer than this in total are refused with 431.
    public var maxHeaderBytes: Int
    /// An idle or stalled connection is closed after this many seconds.
    public var connectionTimeoutSeconds: Int
    /// A request whose body is still arriving this many seconds after its headers is cut off
    /// (a client trickling bytes keeps an idle timeout from ever firing).
    public var requestDeadlineSeconds: Int
    /// A connection that has not sent a whole request's headers this many seconds after it
    /// opened is cut off; after an answer, the longer of this and the idle timeout (0: no bound).
    public var headerDeadlineSeconds: Int = 30
    /// Connections open at once, all clients together.
    public var maxConnections: Int
    /// Connections open at once from one IP address (0: no per-IP limit).
    public var maxConnectionsPerIP: Int
    /// How long shutdown waits for requests in flight before closing anyway.
    public var shutdownGraceSeconds: Double
    /// Reverse proxies whose `X-Forwarded-For` names the client: for a request from one of
    /// them, the last address that header lists (the one the proxy added) is the client's,
    /// for rate limits and logs. From any other peer the header is ignored: a client cannot
    /// choose the address it is counted under.
    public var trustedProxies: Set<RemoteAddress>

    public init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        threads: Int = max(1, ProcessInfo.processInfo.activeProcessorCount * 2),
        workers: Int = max(2, ProcessInfo.processInfo.activeProcessorCount * 2),
        queueLimit: Int = 128,
        maxBodyBytes: Int = 64 * 1024,
        maxUploadBytes: Int = 8 * 1024 * 1024,
        maxURLBytes: Int = 8 * 1024,
        maxHeaderBytes: Int = 32 * 1024,
        connectionTimeoutSeconds: Int = 30,
        requestDeadlineSeconds: Int = 60,
        maxConnections: Int = 1000,
        maxConnectionsPerIP: Int = 128,
        shutdownGraceSeconds: Double = 10,
        trustedProxies: Set<RemoteAddress> = []
    ) {
        self.trustedProxies = trustedProxies
        self.host = host
        self.port = port
        self.threads = threads
        self.workers = workers
        self.queueLimit = queueLimit
        self.maxBodyBytes = maxBodyBytes
        self.maxUploadBytes = maxUploadBytes
        self.maxURLBytes = maxURLBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.connectionTimeoutSeconds = connectionTimeoutSeconds
        self.requestDeadlineSeconds = requestDeadlineSeconds
        self.maxConnections = maxConnections
        self.maxConnectionsPerIP = maxConnectionsPerIP
        self.shutdownGraceSeconds = shutdownGraceSeconds
    }
}
