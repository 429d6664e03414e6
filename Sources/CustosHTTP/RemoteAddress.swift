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

    /// An address written as text (`198.51.100.7`, `2001:db8::1`); nil for anything else
    /// (inet_pton: no resolver involved).
    public init?(parsing text: some StringProtocol) {
        let text = String(text).trimmingCharacters(in: .whitespaces)
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            family = AF_INET
            bytes = withUnsafeBytes(of: v4) { Array($0) }
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            family = AF_INET6
            bytes = withUnsafeBytes(of: v6) { Array($0) }
        } else {
            return nil
        }
    }

    /// What per-address limits count on: the address itself for IPv4 (an IPv4-mapped IPv6
    /// address counts as its IPv4 address), and the /64 network for IPv6, which one subscriber
    /// is handed whole: `2001:db8:1:2::/64`.
    public var limitKey: String {
        guard family == AF_INET6, bytes.count == 16 else { return description }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff {
            return bytes[12...].map(String.init).joined(separator: ".")
        }
        let groups = stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
        return groups.joined(separator: ":") + "::/64"
    }

    /// `127.0.0.1`, `::1` (inet_ntop: no resolver involved).
    public var description: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let ok = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &text, socklen_t(text.count)) != nil }
        guard ok else { return "unknown" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
