import Foundation

/// A minimal HTTP/1.1 client over one TCP connection, so tests can see exactly what goes
/// over the wire (keep-alive, headers) and send what a well-behaved client would not.
/// (`@unchecked Sendable`: a test hands it to one other thread and waits; never shared concurrently.)
final class RawHTTPClient: @unchecked Sendable {
    struct Reply {
        var status: Int
        var headers: [String: String]  // lower-cased names
        var body: Data
        var json: [String: Any]? { try? JSONSerialization.jsonObject(with: body) as? [String: Any] }
        var errorCode: String? { (json?["error"] as? [String: Any])?["code"] as? String }
    }

    struct Failure: Error, CustomStringConvertible { let description: String }

    private let fd: Int32
    private var buffer = Data()

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { throw Failure(description: "connect failed: errno \(errno)") }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    func send(_ raw: Data) throws {
        var offset = 0
        while offset < raw.count {
            let n = raw.withUnsafeBytes { Foundation.send(fd, $0.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failure(description: "send failed: errno \(errno)") }
            offset += n
        }
    }

    func request(_ method: String, _ path: String, headers: [String: String] = [:], body: Data? = nil) throws -> Reply {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body, headers["Transfer-Encoding"] == nil { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        try send(Data(head.utf8) + (body ?? Data()))
        return try readReply(isHead: method == "HEAD")
    }

    func readReply(isHead: Bool = false) throws -> Reply {
        let separator = Data("\r\n\r\n".utf8)
        while buffer.range(of: separator) == nil { try fill() }
        let headerEnd = buffer.range(of: separator)!
        let headText = String(decoding: buffer[buffer.startIndex..<headerEnd.lowerBound], as: UTF8.self)
        buffer = Data(buffer[headerEnd.upperBound...])
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw Failure(description: "bad status line") }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = isHead ? 0 : Int(headers["content-length"] ?? "0") ?? 0
        while buffer.count < length { try fill() }
        let body = Data(buffer.prefix(length))
        buffer = Data(buffer.dropFirst(length))
        return Reply(status: status, headers: headers, body: body)
    }

    /// True when the server closed the connection (read returns 0).
    func isClosedByPeer() -> Bool {
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, 0) == 0
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = recv(fd, &chunk, chunk.count, 0)
        guard n > 0 else { throw Failure(description: n == 0 ? "connection closed" : "recv failed: errno \(errno)") }
        buffer.append(contentsOf: chunk[0..<n])
    }
}
