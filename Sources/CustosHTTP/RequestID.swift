import Synchronization

/// Request ids: the client's `X-Request-Id` when it is short and plain, else a new one made
/// of a per-process random prefix and a counter (unique, cheap, not secret).
enum RequestID {
    private static let prefix: String = {
        var generator = SystemRandomNumberGenerator()
        let value = generator.next() as UInt64
        return String(value & 0xFFFF_FFFF, radix: 16)
    }()
    private static let counter = Atomic<UInt64>(0)

    static func make(clientValue: String?) -> String {
        if let clientValue, isAcceptable(clientValue) { return clientValue }
        let n = counter.wrappingAdd(1, ordering: .relaxed).newValue
        var id = prefix
        id.append("-")
        id.append(String(n, radix: 16))
        return id
    }

    /// 1–128 characters of `[A-Za-z0-9._:-]`, so it is safe to echo and to log.
    static func isAcceptable(_ value: String) -> Bool {
        let utf8 = value.utf8
        guard !utf8.isEmpty, utf8.count <= 128 else { return false }
        return utf8.allSatisfy { byte in
            (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122)
                || byte == 45 || byte == 46 || byte == 95 || byte == 58
        }
    }
}
