import Synchronization

/// Request ids: the client's `X-Request-Id` when it is short and plain, else a new one made
/// of a per-process random prefix and a counter (unique, cheap, not secret).
enum RequestID {
    /// The random prefix in hex and the dash after it.
    private static let prefix: [UInt8] = {
        var generator = SystemRandomNumberGenerator()
        let value = generator.next() as UInt64
        return Array(String(value & 0xFFFF_FFFF, radix: 16).utf8) + [UInt8(ascii: "-")]
    }()
    private static let counter = Atomic<UInt64>(0)

    static func make(clientValue: String?) -> String {
        if let clientValue, isAcceptable(clientValue) { return clientValue }
        return make(number: counter.wrappingAdd(1, ordering: .relaxed).newValue)
    }

    /// The prefix and `number` in lower-case hex, written straight into the string (this runs
    /// for every request).
    static func make(number: UInt64) -> String {
        let prefix = Self.prefix
        let digits = number == 0 ? 1 : (67 - number.leadingZeroBitCount) / 4
        // The exact length: up to 15 bytes the string is stored inline, without an allocation.
        return String(unsafeUninitializedCapacity: prefix.count + digits) { buffer in
            var count = 0
            for byte in prefix {
                buffer[count] = byte
                count += 1
            }
            var shift = (digits - 1) * 4
            while shift >= 0 {
                let digit = UInt8(truncatingIfNeeded: (number >> UInt64(shift)) & 0xF)
                buffer[count] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
                count += 1
                shift -= 4
            }
            return count
        }
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
