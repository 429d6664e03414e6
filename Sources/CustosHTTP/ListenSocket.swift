import Foundation

/// A bound, listening TCP socket. Binding it here (rather than inside libmicrohttpd) lets
/// the server learn the port chosen for `port: 0` and report bind errors precisely.
struct ListenSocket {
    let descriptor: Int32
    let port: Int

    enum Failure: Error, CustomStringConvertible {
        case resolve(String, String)
        case bind(String, Int, String)

        var description: String {
            switch self {
            case .resolve(let host, let reason): "cannot resolve listen host '\(host)': \(reason)"
            case .bind(let host, let port, let reason): "cannot listen on \(host):\(port): \(reason)"
            }
        }
    }

    static func open(host: String, port: Int, backlog: Int32 = 1024) throws -> ListenSocket {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw Failure.resolve(host, String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(list) }

        var lastError = "no address"
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            cursor = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), info.pointee.ai_protocol)
            guard fd >= 0 else { lastError = String(cString: strerror(errno)); continue }
            var yes: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
            // Every worker thread polls this socket; non-blocking so a worker that loses the
            // race for a connection does not block in accept().
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            guard bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0, listen(fd, backlog) == 0 else {
                lastError = String(cString: strerror(errno))
                close(fd)
                continue
            }
            return ListenSocket(descriptor: fd, port: boundPort(fd) ?? port)
        }
        throw Failure.bind(host, port, lastError)
    }

    private static func boundPort(_ fd: Int32) -> Int? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) == 0 }
        }
        guard ok else { return nil }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
        default:
            return nil
        }
    }
}
