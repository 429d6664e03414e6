import Foundation

/// One plain HTTP/1.1 exchange over a fresh loopback connection, for tests that must see a
/// connection refused or closed rather than a client library's retries.
enum LoopbackHTTP {
    /// A connected socket, or nil when the connection is refused.
    static func connect(port: Int) -> Int32? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Foundation.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { close(descriptor); return nil }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return descriptor
    }

    /// The status of `GET path`, or nil when the server refused or closed the connection unanswered.
    static func status(port: Int, path: String) -> Int? {
        guard let descriptor = connect(port: port) else { return nil }
        defer { close(descriptor) }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
        guard send(descriptor, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else { return nil }
        var reply = [UInt8](repeating: 0, count: 64)
        let count = recv(descriptor, &reply, reply.count, 0)
        guard count >= 12 else { return nil }
        return Int(String(decoding: reply[9..<12], as: UTF8.self))
    }
}
