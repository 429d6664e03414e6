import CustosConfiguration
import CustosCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The callback URLs the server may call: https (or plain http to a loopback receiver in
/// development), no credentials in the URL, and a host whose every address is public unless
/// the operator allows private ones. Checked at creation and again before each delivery (the
/// name may have been pointed elsewhere since).
public struct CallbackURLPolicy: CallbackURLValidator {
    let configuration: WebhookConfiguration

    public init(_ configuration: WebhookConfiguration) {
        self.configuration = configuration
    }

    public func validate(_ url: String) throws {
        _ = try checked(url)
    }

    /// A callback URL that passed the checks, with the addresses it was checked at: the
    /// delivery connects to these and no others, so a name re-pointed between the check and
    /// the connection (DNS rebinding) reaches nothing new.
    struct CheckedCallback {
        let host: String
        let port: Int
        /// Numeric addresses, IPv6 in brackets (curl's `--resolve` form).
        let addresses: [String]

        /// Whether the URL names an address rather than a host name (`[2001:db8::1]`, `203.0.113.7`).
        var isAddressLiteral: Bool {
            host.hasPrefix("[") || host.contains(":") || addresses == [host]
        }
    }

    func checked(_ url: String) throws -> CheckedCallback {
        guard url.utf8.count <= 2048, let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
              let host = components.host, !host.isEmpty else {
            throw StepUpError.invalidCallback("must be an absolute https URL")
        }
        guard components.user == nil, components.password == nil else {
            throw StepUpError.invalidCallback("must not carry credentials")
        }
        guard components.fragment == nil else { throw StepUpError.invalidCallback("must not have a fragment") }
        let addresses = try Self.resolve(host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")))
        let loopbackOnly = addresses.allSatisfy { $0.kind == .loopback }
        switch scheme {
        case "https": break
        case "http" where configuration.allowsLoopbackHTTP && loopbackOnly: break
        default: throw StepUpError.invalidCallback("must use https\(configuration.allowsLoopbackHTTP ? " (or http to a loopback address)" : "")")
        }
        for address in addresses {
            switch address.kind {
            case .public: continue
            case .loopback where configuration.allowsLoopbackHTTP || configuration.allowsPrivateAddresses: continue
            case .privateNetwork, .loopback, .linkLocal:
                guard configuration.allowsPrivateAddresses else {
                    throw StepUpError.invalidCallback("points at a \(address.kind.rawValue) address, refused (webhook_allow_private is off)")
                }
            case .embedsIPv4:
                throw StepUpError.invalidCallback("points at an IPv6 address that embeds an IPv4 one (mapped, translated, NAT64, 6to4 "
                                                  + "or Teredo), refused: name the receiver's own IPv4 or IPv6 address")
            case .unusable:
                throw StepUpError.invalidCallback("points at an address that cannot be called")
            }
        }
        let port = components.port ?? (scheme == "https" ? 443 : 80)
        return CheckedCallback(host: host, port: port, addresses: addresses.map(\.text))
    }

    /// One resolved address and what kind of network it is in.
    struct Address {
        enum Kind: String { case `public`, loopback, privateNetwork = "private", linkLocal = "link-local", embedsIPv4 = "IPv4-embedding", unusable }
        let bytes: [UInt8]
        var kind: Kind { Self.classify(bytes) }

        /// The numeric form (`203.0.113.7`, `[2001:db8::1]`).
        var text: String {
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            let family = bytes.count == 4 ? AF_INET : AF_INET6
            _ = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) }
            let numeric = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return bytes.count == 4 ? numeric : "[\(numeric)]"
        }

        static func classify(_ bytes: [UInt8]) -> Kind {
            if bytes.count == 16 { return classifyIPv6(bytes) }
            guard bytes.count == 4 else { return .unusable }
            switch (bytes[0], bytes[1], bytes[2]) {
            case (127, _, _): return .loopback
            case (10, _, _), (172, 16...31, _), (192, 168, _), (100, 64...127, _): return .privateNetwork
            // IETF protocol assignments (192.0.0.0/24) and the benchmarking range (198.18.0.0/15).
            case (192, 0, 0), (198, 18...19, _): return .privateNetwork
            case (169, 254, _): return .linkLocal
            case (0, _, _), (224...255, _, _): return .unusable
            default: return .public
            }
        }

        /// An IPv6 address. Every form that carries an IPv4 address is refused whatever that
        /// address is (`embedsIPv4`): IPv4-mapped (::ffff:0:0/96), IPv4-translated
        /// (::ffff:0:0:0/96), IPv4-compatible (::/96), NAT64 well-known (64:ff9b::/96) and
        /// local-use (64:ff9b:1::/48), 6to4 (2002::/16) and Teredo (2001::/32). Each is a way to
        /// reach an IPv4 address that a check of the IPv6 form could misjudge, and no receiver
        /// needs one: it has an IPv4 address of its own to name.
        static func classifyIPv6(_ bytes: [UInt8]) -> Kind {
            if bytes[0..<15].allSatisfy({ $0 == 0 }) { return bytes[15] == 1 ? .loopback : .unusable }
            if isIPv4Embedding(bytes) { return .embedsIPv4 }
            if bytes[0] & 0xfe == 0xfc { return .privateNetwork }
            if bytes[0] == 0xfe && bytes[1] & 0xc0 == 0x80 { return .linkLocal }
            // Site-local (fec0::/10, deprecated but still routed inside some networks).
            if bytes[0] == 0xfe && bytes[1] & 0xc0 == 0xc0 { return .privateNetwork }
            if bytes[0] == 0xff { return .unusable }
            return .public
        }

        /// Whether a 16-byte address lies in one of the prefixes that embed an IPv4 address.
        static func isIPv4Embedding(_ bytes: [UInt8]) -> Bool {
            let zeros = { (range: Range<Int>) in bytes[range].allSatisfy { $0 == 0 } }
            let ffff = { (at: Int) in bytes[at] == 0xff && bytes[at + 1] == 0xff }
            if zeros(0..<10) && ffff(10) { return true }                      // mapped ::ffff:a.b.c.d
            if zeros(0..<8) && ffff(8) && zeros(10..<12) { return true }      // translated ::ffff:0:a.b.c.d
            if zeros(0..<12) { return true }                                  // compatible ::a.b.c.d
            if bytes[0..<4] == [0x00, 0x64, 0xff, 0x9b] && (zeros(4..<12) || bytes[4..<6] == [0x00, 0x01]) { return true }  // NAT64
            if bytes[0] == 0x20 && bytes[1] == 0x02 { return true }           // 6to4
            if bytes[0..<4] == [0x20, 0x01, 0x00, 0x00] { return true }       // Teredo
            return false
        }
    }

    /// Every address `host` resolves to (an address literal is itself).
    static func resolve(_ host: String) throws -> [Address] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else {
            throw StepUpError.invalidCallback("names a host that does not resolve")
        }
        defer { freeaddrinfo(list) }
        var addresses: [Address] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            if let socket = entry.pointee.ai_addr {
                switch Int32(socket.pointee.sa_family) {
                case AF_INET:
                    socket.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ipv4 in
                        var raw = ipv4.pointee.sin_addr
                        addresses.append(Address(bytes: withUnsafeBytes(of: &raw) { Array($0) }))
                    }
                case AF_INET6:
                    socket.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { ipv6 in
                        var raw = ipv6.pointee.sin6_addr
                        addresses.append(Address(bytes: withUnsafeBytes(of: &raw) { Array($0) }))
                    }
                default:
                    break
                }
            }
            cursor = entry.pointee.ai_next
        }
        guard !addresses.isEmpty else { throw StepUpError.invalidCallback("names a host without an address") }
        return addresses
    }
}
