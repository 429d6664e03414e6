import Foundation

/// Why a CBOR item was refused.
public struct CBORError: Error, Equatable, Sendable {
    public let reason: String

    public init(_ reason: String) {
        self.reason = reason
    }
}

/// One entry of a CBOR map. A struct rather than a tuple so that maps stay `Equatable`, and an
/// array rather than a dictionary so that the authenticator's order is kept.
public struct CBORPair: Hashable, Sendable {
    public var key: CBORValue
    public var value: CBORValue

    public init(key: CBORValue, value: CBORValue) {
        self.key = key
        self.value = value
    }
}

/// A CBOR (RFC 8949) data item, as far as WebAuthn needs one: attestation objects and COSE keys
/// (Web Authentication Level 3, §6.5 and §6.4.1.1).
///
/// The decoder is strict because its input comes from whoever registers a credential: definite
/// lengths only, no tags, no floating-point or other simple values than `true`, `false` and
/// `null`, text that is valid UTF-8, no duplicate map keys, a nesting limit, and every declared
/// length checked against the bytes that remain before anything is allocated. WebAuthn uses
/// none of what is refused, so refusing it costs no authenticator and removes places to hide
/// ambiguity. Integers in a longer form than needed are accepted: they mean one value only.
public indirect enum CBORValue: Hashable, Sendable {
    /// Major type 0.
    case unsigned(UInt64)
    /// Major type 1, as the value itself (`-7`, not the encoded argument `6`). Values below
    /// `Int64.min` are refused by the decoder.
    case negative(Int64)
    case bytes(Data)
    case text(String)
    case array([CBORValue])
    case map([CBORPair])
    case bool(Bool)
    case null

    /// Decodes the one data item at the start of `data` and returns it with the number of bytes
    /// it took: authenticator data carries a COSE key followed by more bytes (extensions), so the
    /// caller needs to know where the key ends.
    ///
    /// - Parameter maximumDepth: how many arrays and maps may nest (a top-level array is one);
    ///   the decoder recurses, so hostile nesting must not reach the stack's limit.
    public static func decode(_ data: Data, maximumDepth: Int = 16) throws -> (value: CBORValue, length: Int) {
        var reader = CBORReader(bytes: [UInt8](data), maximumDepth: maximumDepth)
        let value = try reader.item(depth: 0)
        return (value, reader.offset)
    }

    /// Decodes `data` as exactly one data item: trailing bytes are an error, since whatever an
    /// attacker appends must not ride along unread.
    public static func decodeAll(_ data: Data) throws -> CBORValue {
        let (value, length) = try decode(data)
        guard length == data.count else { throw CBORError("\(data.count - length) bytes follow the data item") }
        return value
    }

    /// The value under the integer key `key` in a map (COSE keys use integer labels); nil when
    /// this is not a map or the key is absent.
    public subscript(key: Int) -> CBORValue? {
        let wanted: CBORValue = key >= 0 ? .unsigned(UInt64(key)) : .negative(Int64(key))
        return value(for: wanted)
    }

    /// The value under the text key `key` in a map (attestation objects use text keys).
    public subscript(key: String) -> CBORValue? {
        value(for: .text(key))
    }

    /// The bytes of a byte string.
    public var bytes: Data? {
        guard case .bytes(let data) = self else { return nil }
        return data
    }

    /// The string of a text string.
    public var text: String? {
        guard case .text(let string) = self else { return nil }
        return string
    }

    /// An integer of either sign that fits `Int64`.
    public var int: Int64? {
        switch self {
        case .unsigned(let value): return value <= UInt64(Int64.max) ? Int64(value) : nil
        case .negative(let value): return value
        default: return nil
        }
    }

    private func value(for key: CBORValue) -> CBORValue? {
        guard case .map(let pairs) = self else { return nil }
        return pairs.first { $0.key == key }?.value
    }
}

/// Reads data items from a byte array, front to back.
private struct CBORReader {
    let bytes: [UInt8]
    let maximumDepth: Int
    var offset = 0

    init(bytes: [UInt8], maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    var remaining: Int { bytes.count - offset }

    /// `depth` counts the arrays and maps that enclose the item.
    mutating func item(depth: Int) throws -> CBORValue {
        let initial = try byte()
        let major = initial >> 5
        let info = initial & 0x1F
        if info == 31 {
            // Indefinite lengths (and the "break" that ends them) would let an item's size be
            // unknown until its end; WebAuthn's CTAP2 canonical encoding never uses them.
            throw CBORError("indefinite-length items are not accepted (initial byte 0x\(String(initial, radix: 16)))")
        }
        switch major {
        case 0:
            let value = try argument(info)
            return .unsigned(value)
        case 1:
            let encoded = try argument(info)
            guard encoded <= UInt64(Int64.max) else { throw CBORError("negative integer -1-\(encoded) does not fit 64 bits") }
            return .negative(-1 - Int64(encoded))
        case 2:
            let declared = try argument(info)
            let count = try length(declared, what: "byte string")
            let content = try take(count)
            return .bytes(Data(content))
        case 3:
            let declared = try argument(info)
            let count = try length(declared, what: "text string")
            let utf8 = try take(count)
            // Decoding replaces ill-formed sequences (overlong forms, surrogates, stray bytes)
            // with U+FFFD, so only valid UTF-8 comes back byte for byte.
            let string = String(decoding: utf8, as: UTF8.self)
            guard string.utf8.elementsEqual(utf8) else { throw CBORError("text string is not valid UTF-8") }
            return .text(string)
        case 4:
            // Every element takes at least one byte: a count beyond what remains is a lie, and
            // is refused before any storage is reserved for it.
            let declared = try argument(info)
            let count = try length(declared, what: "array")
            try enter(depth)
            var items: [CBORValue] = []
            items.reserveCapacity(count)
            for _ in 0..<count {
                let element = try item(depth: depth + 1)
                items.append(element)
            }
            return .array(items)
        case 5:
            let count = try argument(info)
            guard count <= UInt64(remaining / 2) else {
                throw CBORError("map declares \(count) entries but only \(remaining) bytes remain")
            }
            try enter(depth)
            var pairs: [CBORPair] = []
            pairs.reserveCapacity(Int(count))
            var seen: Set<CBORValue> = []
            for _ in 0..<Int(count) {
                let key = try item(depth: depth + 1)
                // Two values for one key would let two readers of the same bytes disagree.
                guard seen.insert(key).inserted else { throw CBORError("map repeats a key") }
                let value = try item(depth: depth + 1)
                pairs.append(CBORPair(key: key, value: value))
            }
            return .map(pairs)
        case 6:
            throw CBORError("tags are not accepted (tag byte 0x\(String(initial, radix: 16)))")
        default:
            switch info {
            case 20: return .bool(false)
            case 21: return .bool(true)
            case 22: return .null
            case 25, 26, 27: throw CBORError("floating-point values are not accepted")
            default: throw CBORError("simple value \(info) is not accepted")
            }
        }
    }

    /// The argument that follows an initial byte's additional information (§3).
    mutating func argument(_ info: UInt8) throws -> UInt64 {
        let size: Int
        switch info {
        case 0..<24: return UInt64(info)
        case 24: size = 1
        case 25: size = 2
        case 26: size = 4
        case 27: size = 8
        default: throw CBORError("reserved additional information \(info)")
        }
        let encoded = try take(size)
        return encoded.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    /// A declared length as an `Int`, once it is known to fit in what remains: a hostile length
    /// such as 2^64 - 1 is refused here, before it is converted or allocated.
    func length(_ declared: UInt64, what: String) throws -> Int {
        guard declared <= UInt64(remaining) else {
            throw CBORError("\(what) declares \(declared) bytes but only \(remaining) remain")
        }
        return Int(declared)
    }

    func enter(_ depth: Int) throws {
        guard depth < maximumDepth else { throw CBORError("items nest deeper than \(maximumDepth) levels") }
    }

    mutating func byte() throws -> UInt8 {
        guard offset < bytes.count else { throw CBORError("the data ends inside an item") }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func take(_ count: Int) throws -> ArraySlice<UInt8> {
        guard count <= remaining else { throw CBORError("the data ends inside an item") }
        defer { offset += count }
        return bytes[offset..<(offset + count)]
    }
}
