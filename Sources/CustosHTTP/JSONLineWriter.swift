import Foundation
import Synchronization

/// Builds a JSON text byte by byte. Used on hot paths (access log, error bodies) where a
/// JSONEncoder round trip per request would cost more than the request itself.
struct JSONLineWriter {
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

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func bytesAppend(_ other: [UInt8]) {
        bytes.append(contentsOf: other)
    }

    /// Text that is already valid JSON (a number). Literals go through `raw(_: StaticString)`.
    mutating func rawText(_ text: String) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    mutating func integer(_ value: Int) {
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
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
            bytes.append(contentsOf: buffer[(20 - count)...])
        }
    }

    /// Appends `value` as a JSON string literal: quotes, and escapes for `"`, `\` and control
    /// characters; everything else (UTF-8 included) is copied as is.
    mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var start = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                escape(byte)
                start = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<utf8.count]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func escape(_ byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
        case UInt8(ascii: "\n"): bytes.append(UInt8(ascii: "n"))
        case UInt8(ascii: "\r"): bytes.append(UInt8(ascii: "r"))
        case UInt8(ascii: "\t"): bytes.append(UInt8(ascii: "t"))
        default:
            let hex: [UInt8] = Array("0123456789abcdef".utf8)
            bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
        }
    }

    /// RFC 3339 UTC with milliseconds, e.g. `"2026-11-30T09:36:11.771Z"`, quoted.
    mutating func timestamp(_ time: timespec) {
        bytes.append(UInt8(ascii: "\""))
        SecondStamp.append(Int(time.tv_sec), to: &bytes)
        bytes.append(UInt8(ascii: "."))
        unsigned(UInt(time.tv_nsec / 1_000_000), width: 3)
        raw("Z\"")
    }
}

/// `YYYY-MM-DDTHH:MM:SS` of the current second, formatted once per second rather than once
/// per log line. The 19 bytes are kept in a plain tuple, so reading them back copies no array.
enum SecondStamp {
    typealias Text = (UInt64, UInt64, UInt64)
    private static let cache = Mutex<(second: Int, text: Text)>((-1, (0, 0, 0)))
    static let length = 19

    static func append(_ second: Int, to bytes: inout [UInt8]) {
        var text = cache.withLock { $0.second == second ? $0.text : nil } ?? format(second)
        withUnsafeBytes(of: &text) { bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[0..<length])) }
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
