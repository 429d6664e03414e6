import Foundation

/// A peer's IP address, kept as the socket address and turned into text only when asked.
public struct RemoteAddress: Sendable, Hashable, CustomStringConvertible {
    private let family: Int32
    /// The address in network order: the first 4 bytes for IPv4, all 16 for IPv6. Kept inline,
    /// so that reading a request's peer allocates nothing.
    private var storage: (UInt64, UInt64) = (0, 0)

    /// The address's bytes (4 or 16).
    private var bytes: [UInt8] {
        withUnsafeBytes(of: storage) { Array($0.prefix(family == AF_INET ? 4 : 16)) }
    }

    public static func == (a: RemoteAddress, b: RemoteAddress) -> Bool { a.family == b.family && a.storage == b.storage }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(family)
        hasher.combine(storage.0)
        hasher.combine(storage.1)
    }

    private init(family: Int32, copying address: UnsafeRawBufferPointer) {
        self.family = family
        withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: address) }
    }

    init?(_ address: UnsafePointer<sockaddr>) {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            self = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
                withUnsafeBytes(of: inet.pointee.sin_addr) { RemoteAddress(family: AF_INET, copying: $0) }
            }
        case AF_INET6:
            self = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { inet6 in
                withUnsafeBytes(of: inet6.pointee.sin6_addr) { RemoteAddress(family: AF_INET6, copying: $0) }
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
            self = withUnsafeBytes(of: v4) { RemoteAddress(family: AF_INET, copying: $0) }
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            self = withUnsafeBytes(of: v6) { RemoteAddress(family: AF_INET6, copying: $0) }
        } else {
            return nil
        }
    }

    /// What per-address limits count on: the address itself for IPv4 (an IPv4-mapped IPv6
    /// address counts as its IPv4 address), and the /64 network for IPv6, which one subscriber
    /// is handed whole: `2001:db8:1:2::/64`.
    public var limitKey: String {
        guard family == AF_INET6 else { return description }
        let bytes = bytes
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff {
            return bytes[12...].map(String.init).joined(separator: ".")
        }
        let groups = stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
        return groups.joined(separator: ":") + "::/64"
    }

    /// `127.0.0.1`, `::1` (inet_ntop: no resolver involved).
    public var description: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let ok = withUnsafeBytes(of: storage) { inet_ntop(family, $0.baseAddress, &text, socklen_t(text.count)) != nil }
        guard ok else { return "unknown" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
