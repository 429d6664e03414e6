import Foundation
import Synchronization

/// Where JSON text is written byte by byte, and the writing itself (a protocol extension, so
/// each output gets its own specialised copy). Used on hot paths (access log, error bodies)
/// where a JSONEncoder round trip per request would cost more than the request itself.
protocol JSONOutput {
    mutating func append(_ byte: UInt8)
    mutating func append(_ bytes: UnsafeRawBufferPointer)
}

extension JSONOutput {
    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { append(UnsafeRawBufferPointer($0)) }
    }

    /// Text that is already valid JSON (a number). Literals go through `raw(_: StaticString)`.
    mutating func rawText(_ text: String) {
        var text = text
        text.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    mutating func integer(_ value: Int) {
        if value < 0 {
            append(UInt8(ascii: "-"))
            unsigned(UInt(value.magnitude))
        } else {
            unsigned(UInt(value))
        }
    }

    mutating func unsigned(_ value: UInt, width: Int = 1) {
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var rest = value
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[19 - count] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
                count += 1
            } while rest > 0 || count < width
            append(UnsafeRawBufferPointer(rebasing: buffer[(20 - count)...]))
        }
    }

    /// Appends `value` as a JSON string literal: quotes, and escapes for `"`, `\` and control
    /// characters; everything else (UTF-8 included) is copied as is.
    mutating func string(_ value: String) {
        append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var start = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                append(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: utf8[start..<index])))
                escape(byte)
                start = index + 1
            }
            append(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: utf8[start..<utf8.count])))
        }
        append(UInt8(ascii: "\""))
    }

    private mutating func escape(_ byte: UInt8) {
        append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): append(byte)
        case UInt8(ascii: "\n"): append(UInt8(ascii: "n"))
        case UInt8(ascii: "\r"): append(UInt8(ascii: "r"))
        case UInt8(ascii: "\t"): append(UInt8(ascii: "t"))
        default:
            let hex: StaticString = "0123456789abcdef"
            raw("u00")
            append(hex.utf8Start[Int(byte >> 4)])
            append(hex.utf8Start[Int(byte & 0xF)])
        }
    }

    /// RFC 3339 UTC with milliseconds, e.g. `"2026-11-30T09:36:11.771Z"`, quoted.
    mutating func timestamp(_ time: timespec) {
        append(UInt8(ascii: "\""))
        var text = SecondStamp.text(Int(time.tv_sec))
        withUnsafeBytes(of: &text) { append(UnsafeRawBufferPointer(rebasing: $0[0..<SecondStamp.length])) }
        append(UInt8(ascii: "."))
        unsigned(UInt(time.tv_nsec / 1_000_000), width: 3)
        raw("Z\"")
    }
}

/// JSON text in a growing array.
struct JSONLineWriter: JSONOutput {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    /// Appends to `storage` (taken over without copying; give it back with `release()`).
    init(adopting storage: inout [UInt8]) {
        swap(&bytes, &storage)
    }

    /// Hands the bytes back without copying.
    mutating func release() -> [UInt8] {
        var out: [UInt8] = []
        swap(&out, &bytes)
        return out
    }

    mutating func append(_ byte: UInt8) { bytes.append(byte) }
    mutating func append(_ bytes: UnsafeRawBufferPointer) { self.bytes.append(contentsOf: bytes) }
}

/// JSON text in a fixed buffer (on the stack: `withUnsafeTemporaryAllocation`): no capacity
/// checks of an array per piece, one bounds check; what does not fit is not written and
/// `overflowed` says so.
struct JSONFixedWriter: JSONOutput {
    private let buffer: UnsafeMutableRawBufferPointer
    private(set) var count = 0
    private(set) var overflowed = false

    init(_ buffer: UnsafeMutableRawBufferPointer) {
        self.buffer = buffer
    }

    var written: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: buffer[..<count]) }

    mutating func append(_ byte: UInt8) {
        guard count < buffer.count else { overflowed = true; return }
        buffer[count] = byte
        count += 1
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count <= buffer.count - count else { overflowed = true; return }
        if let base = bytes.baseAddress { (buffer.baseAddress! + count).copyMemory(from: base, byteCount: bytes.count) }
        count += bytes.count
    }
}

/// `YYYY-MM-DDTHH:MM:SS` of the current second, formatted once per second rather than once
/// per log line. The 19 bytes are kept in a plain tuple, so reading them back copies no array.
enum SecondStamp {
    typealias Text = (UInt64, UInt64, UInt64)
    private static let cache = Mutex<(second: Int, text: Text)>((-1, (0, 0, 0)))
    static let length = 19

    static func text(_ second: Int) -> Text {
        cache.withLock { $0.second == second ? $0.text : nil } ?? format(second)
    }

    private static func format(_ second: Int) -> Text {
        var seconds = time_t(second)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var writer = JSONLineWriter(capacity: 24)
        writer.unsigned(UInt(parts.tm_year + 1900), width: 4); writer.raw("-")
        writer.unsigned(UInt(parts.tm_mon + 1), width: 2); writer.raw("-")
        writer.unsigned(UInt(parts.tm_mday), width: 2); writer.raw("T")
        writer.unsigned(UInt(parts.tm_hour), width: 2); writer.raw(":")
        writer.unsigned(UInt(parts.tm_min), width: 2); writer.raw(":")
        writer.unsigned(UInt(parts.tm_sec), width: 2)
        var text: Text = (0, 0, 0)
        withUnsafeMutableBytes(of: &text) { $0.copyBytes(from: writer.bytes.prefix(length)) }
        cache.withLock { $0 = (second, text) }
        return text
    }
}
