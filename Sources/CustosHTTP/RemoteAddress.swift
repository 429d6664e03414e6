import Foundation

/// A peer's IP address, kept as the socket address and turned into text only when asked.
public struct RemoteAddress: Sendable, Hashable, CustomStringConvertible {
    private let family: Int32
    /// 4 bytes for IPv4, 16 for IPv6, network order.
    private let bytes: [UInt8]

    init?(_ address: UnsafePointer<sockaddr>) {
        family = Int32(address.pointee.sa_family)
        switch family {
        case AF_INET:
            bytes = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
                withUnsafeBytes(of: inet.pointee.sin_addr) { Array($0) }
            }
        case AF_INET6:
            bytes = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { inet6 in
                withUnsafeBytes(of: inet6.pointee.sin6_addr) { Array($0) }
            }
        default:
            return nil
        }
    }

    /// `127.0.0.1`, `::1` (inet_ntop: no resolver involved).
    public var description: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let ok = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &text, socklen_t(text.count)) != nil }
        guard ok else { return "unknown" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
