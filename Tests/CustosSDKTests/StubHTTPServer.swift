import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An HTTP server on 127.0.0.1 that gives canned answers, for SDK tests that need a server's
/// reply (an error envelope, a result, a multi-step workflow) without a real server.
final class StubHTTPServer: @unchecked Sendable {
    /// A canned answer.
    struct Answer: Sendable {
        let status: Int
        let body: Data
        init(_ status: Int, _ body: Data) {
            self.status = status
            self.body = body
        }
    }

    let port: UInt16
    private let listener: Int32
    private let route: @Sendable (_ method: String, _ path: String) -> Answer
    private let requests = RequestLog()
    /// Set once the listener is shut down; the serving thread alone closes it, after its last
    /// accept, so its descriptor cannot be reused (by the next test's stub) while that thread
    /// may still accept on it.
    private let closing = NSLock()
    private var stopped = false

    /// The server's base URL.
    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }
    /// The request lines received so far (`POST /v1/activate HTTP/1.1`).
    var requestLines: [String] { requests.all }

    /// The same answer to every request.
    convenience init(status: Int, body: Data) throws {
        let answer = Answer(status, body)
        try self.init { _, _ in answer }
    }

    /// The answer `route` picks by method and path (`POST`, `/v1/idv/transactions/t1/cancel`).
    init(route: @escaping @Sendable (_ method: String, _ path: String) -> Answer) throws {
        self.route = route
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw StubError("socket failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(descriptor, socketAddress, length) == 0 && listen(descriptor, 8) == 0
                    && getsockname(descriptor, socketAddress, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw StubError("bind/listen failed")
        }
        listener = descriptor
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    /// Stops accepting; connections in progress finish.
    func stop() {
        closing.withLock {
            if !stopped { shutdown(listener, Int32(SHUT_RDWR)) }
            stopped = true
        }
    }

    private func serve() {
        defer {
            closing.withLock {
                stopped = true
                close(listener)
            }
        }
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else {
                if errno == EINTR || errno == ECONNABORTED, !closing.withLock({ stopped }) { continue }
                return
            }
            // One thread per connection: a connection the client opened and left idle (or whose
            // body is slow to come) must not hold up the requests behind it.
            Thread.detachNewThread { [self] in answer(connection) }
        }
    }

    private func answer(_ connection: Int32) {
        let line = readRequest(connection)
        if let line { requests.append(line) }
        let parts = (line ?? "").split(separator: " ").map(String.init)
        let answer = parts.count >= 2 ? route(parts[0], parts[1]) : Answer(400, Data())
        var head = "HTTP/1.1 \(answer.status) Stub\r\nContent-Type: application/json\r\n"
        head += "Content-Length: \(answer.body.count)\r\nConnection: close\r\n\r\n"
        let response = Data(head.utf8) + answer.body
        // MSG_NOSIGNAL: a client that already hung up must not kill the test process.
        #if canImport(Glibc)
        response.withUnsafeBytes { _ = send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        #else
        response.withUnsafeBytes { _ = send(connection, $0.baseAddress, $0.count, 0) }
        #endif
        close(connection)
    }

    /// Reads the head and the body (by `Content-Length`); returns the request line.
    private func readRequest(_ connection: Int32) -> String? {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        while true {
            let count = recv(connection, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            received += buffer[0..<count]
            guard let end = received.firstRange(of: separator)?.upperBound else { continue }
            let head = String(decoding: received[..<end], as: UTF8.self)
            let lines = head.components(separatedBy: "\r\n")
            let declared = lines.compactMap { line -> Int? in
                let parts = line.split(separator: ":", maxSplits: 1)
                guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
                return Int(parts[1].trimmingCharacters(in: .whitespaces))
            }.first ?? 0
            if received.count - end >= declared { return lines.first }
        }
    }

    private final class RequestLog: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func append(_ line: String) { lock.withLock { lines.append(line) } }
        var all: [String] { lock.withLock { lines } }
    }

    struct StubError: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }
}
