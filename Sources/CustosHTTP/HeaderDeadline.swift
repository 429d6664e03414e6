import CMicroHTTPD
import Dispatch
import Foundation
import Synchronization

/// Bounds the time a connection may take to send a request's headers: `limitSeconds` from its
/// opening, and from the end of its previous request the longer of that and the idle timeout
/// (a keep-alive connection may wait idle that long). libmicrohttpd's timeout is an idle one,
/// which a client sending a header line every few seconds never trips, and the request
/// deadline covers bodies only: without this, trickling clients hold connections (and the
/// connection limit) as long as they like.
///
/// A connection past the bound has its socket shut down, not closed: libmicrohttpd sees the
/// end and closes it itself. The shutdown is made under the same lock as the notice of the
/// connection's closing, which libmicrohttpd sends before it closes the descriptor, so a
/// descriptor already given to another connection is never touched.
final class HeaderDeadline: Sendable {
    private struct Connection {
        let descriptor: Int32
        /// When its wait for a request's headers ends (uptime nanoseconds); nil while a request runs.
        var deadline: UInt64?
    }

    let limitSeconds: Int
    /// The wait allowed after an answer, for the next request's headers.
    let keepAliveSeconds: Int
    private let logger: Logger
    private let connections = Mutex<[UInt: Connection]>([:])
    private let sweeper = Mutex<SweepTimer?>(nil)
    /// Dispatch sources are safe to use from any thread; the type does not say so.
    private struct SweepTimer: @unchecked Sendable { let source: any DispatchSourceTimer }

    init(limitSeconds: Int, idleTimeoutSeconds: Int, logger: Logger) {
        self.limitSeconds = limitSeconds
        keepAliveSeconds = max(limitSeconds, idleTimeoutSeconds)
        self.logger = logger
    }

    /// Sweeps once a second until `stop()`.
    func start() {
        let timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
        timer.schedule(deadline: .now() + 1, repeating: 1, leeway: .milliseconds(100))
        timer.setEventHandler { [weak self] in self?.sweep() }
        timer.resume()
        sweeper.withLock { $0 = SweepTimer(source: timer) }
    }

    func stop() {
        sweeper.withLock { timer in
            timer?.source.cancel()
            timer = nil
        }
    }

    deinit { stop() }

    func opened(_ connection: OpaquePointer) {
        guard let info = custos_mhd_connection_info(connection, .CONNECTION_INFO_CONNECTION_FD) else { return }
        let descriptor = info.pointee.connect_fd
        connections.withLock { $0[Self.key(connection)] = Connection(descriptor: descriptor, deadline: Self.now() + Self.nanoseconds(limitSeconds)) }
    }

    func closed(_ connection: OpaquePointer) {
        _ = connections.withLock { $0.removeValue(forKey: Self.key(connection)) }
    }

    /// The request's headers are in.
    func requestStarted(_ connection: OpaquePointer) {
        connections.withLock { $0[Self.key(connection)]?.deadline = nil }
    }

    /// Answered: the connection may now wait (keep-alive) for its next request's headers.
    func requestEnded(_ connection: OpaquePointer) {
        connections.withLock { $0[Self.key(connection)]?.deadline = Self.now() + Self.nanoseconds(keepAliveSeconds) }
    }

    /// Shuts down every connection that has waited past the bound; returns how many.
    @discardableResult
    func sweep() -> Int {
        let cut = connections.withLock { connections -> Int in
            // Read under the lock: a deadline set by another thread is never later than it.
            let now = Self.now()
            var late: [UInt] = []
            for (key, connection) in connections {
                guard let deadline = connection.deadline, now > deadline else { continue }
                shutdown(connection.descriptor, Int32(SHUT_RDWR))
                late.append(key)
            }
            for key in late { connections.removeValue(forKey: key) }
            return late.count
        }
        if cut > 0 { logger.warning("header_deadline", ["connections": .int(cut), "seconds": .int(limitSeconds)]) }
        return cut
    }

    private static func key(_ connection: OpaquePointer) -> UInt { UInt(bitPattern: connection) }
    private static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
    private static func nanoseconds(_ seconds: Int) -> UInt64 { UInt64(max(0, seconds)) * 1_000_000_000 }
}

/// libmicrohttpd's notice of a connection opened or closed (`MHD_OPTION_NOTIFY_CONNECTION`).
let connectionNotified: MHD_NotifyConnectionCallback = { cls, connection, _, code in
    guard let cls, let connection else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    guard let deadline = server.headerDeadline else { return }
    switch code {
    case .CONNECTION_NOTIFY_STARTED: deadline.opened(connection)
    case .CONNECTION_NOTIFY_CLOSED: deadline.closed(connection)
    }
}
