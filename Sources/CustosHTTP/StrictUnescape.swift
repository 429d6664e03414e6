import CMicroHTTPD

/// libmicrohttpd's percent-decoding of the path and query, made strict: a `%00`, a
/// malformed escape or a control character does not decode into something else — it
/// replaces the whole value with `StrictUnescape.rejected`, which the server answers with
/// 400 `invalid_path`.
///
/// With the default decoding a `%00` became a NUL that ended the C string early, so
/// `DELETE /v1/users/victim%00/devices/abc` reached the router as `/v1/users/victim`: the path
/// was not what it said.
enum StrictUnescape {
    /// What a rejected value becomes: DEL, which no route or query value of ours contains.
    static let rejected: UInt8 = 0x7F

    /// Whether a decoded path or query value was rejected.
    static func wasRejected(_ value: String) -> Bool { value.utf8.contains(rejected) }

    /// `size_t unescape(void *cls, struct MHD_Connection *c, char *s)` (MHD_OPTION_UNESCAPE_CALLBACK).
    static let callback: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafeMutablePointer<CChar>?) -> Int = { _, _, text in
        guard let text else { return 0 }
        return text.withMemoryRebound(to: UInt8.self, capacity: 1) { StrictUnescape.decode($0) }
    }

    /// Decodes the NUL-terminated `bytes` in place; returns the new length.
    static func decode(_ bytes: UnsafeMutablePointer<UInt8>) -> Int {
        var read = 0, write = 0
        func reject() -> Int {
            bytes[0] = rejected
            bytes[1] = 0
            return 1
        }
        while bytes[read] != 0 {
            var byte = bytes[read]
            if byte == UInt8(ascii: "%") {
                guard let high = hexValue(bytes[read + 1]), let low = hexValue(bytes[read + 2]) else { return reject() }
                byte = high << 4 | low
                read += 3
            } else {
                read += 1
            }
            guard byte >= 0x20, byte != rejected else { return reject() }
            bytes[write] = byte
            write += 1
        }
        bytes[write] = 0
        return write
    }

    /// The value of a hex digit; nil for anything else (the terminating NUL included).
    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
