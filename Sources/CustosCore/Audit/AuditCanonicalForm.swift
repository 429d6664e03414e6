import Foundation

/// The bytes an audit event's `hash` is SHA-256 of: an unambiguous, length-prefixed binary
/// encoding of every field but the hash itself, in this order (version 1):
///
/// | field | encoding |
/// | --- | --- |
/// | version tag | string `custos.audit.v1` |
/// | `sequence` | int64, big-endian two's complement |
/// | `occurredAt` | int64 milliseconds since 1970-01-01T00:00:00Z (rounded to the nearest), big-endian |
/// | `kind` | string |
/// | `userID` | optional string |
/// | `transactionID` | optional string |
/// | `details` | uint32 count, then key string and value string of each entry, in ascending byte order of the keys' UTF-8 |
/// | `previousHash` | bytes |
///
/// where *bytes* is a uint32 big-endian length followed by the bytes, *string* is the bytes
/// of its UTF-8, and *optional string* is the byte 0 when absent, or the byte 1 followed by the
/// string. Every field is either fixed-size or length-prefixed, so no two different events
/// encode alike. A change to this encoding takes a new version tag.
public enum AuditCanonicalForm {
    /// The version tag at the start of the encoding.
    public static let versionTag = "custos.audit.v1"

    /// The encoding of `event` described above.
    public static func bytes(of event: AuditEvent) -> Data {
        var out = Data()
        appendString(versionTag, to: &out)
        appendInt64(event.sequence, to: &out)
        appendInt64(StoredTime.milliseconds(event.occurredAt), to: &out)
        appendString(event.kind, to: &out)
        appendOptionalString(event.userID, to: &out)
        appendOptionalString(event.transactionID, to: &out)
        let entries = event.details.map { (key: Array($0.key.utf8), value: Array($0.value.utf8)) }
            .sorted { $0.key.lexicographicallyPrecedes($1.key) }
        appendUInt32(UInt32(clamping: entries.count), to: &out)
        for entry in entries {
            appendBytes(entry.key, to: &out)
            appendBytes(entry.value, to: &out)
        }
        appendBytes(event.previousHash, to: &out)
        return out
    }

    private static func appendInt64(_ value: Int64, to out: inout Data) {
        withUnsafeBytes(of: value.bigEndian) { out.append(contentsOf: $0) }
    }

    private static func appendUInt32(_ value: UInt32, to out: inout Data) {
        withUnsafeBytes(of: value.bigEndian) { out.append(contentsOf: $0) }
    }

    private static func appendBytes(_ bytes: some Collection<UInt8>, to out: inout Data) {
        appendUInt32(UInt32(clamping: bytes.count), to: &out)
        out.append(contentsOf: bytes)
    }

    private static func appendString(_ text: String, to out: inout Data) {
        appendBytes(Array(text.utf8), to: &out)
    }

    private static func appendOptionalString(_ text: String?, to out: inout Data) {
        guard let text else {
            out.append(0)
            return
        }
        out.append(1)
        appendString(text, to: &out)
    }
}
