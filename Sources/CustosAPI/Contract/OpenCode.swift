/// A code of the wire contract (a workflow number, a status code, a display text) that
/// keeps any raw value it is given: an app built against this version decodes a code a newer
/// server adds instead of failing the whole answer, and can still compare with the codes it
/// knows (`result.statusCode == .success`).
///
/// Conforming types are structs over `rawValue` with the known codes as static members;
/// they encode as the bare raw value, exactly as the contract writes it.
public protocol OpenCode: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible
where RawValue: Codable & Hashable & Sendable & CustomStringConvertible {
    init(rawValue: RawValue)
}

extension OpenCode {
    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(RawValue.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue.description }
}

extension OpenCode where Self: ExpressibleByIntegerLiteral, RawValue == Int {
    public init(integerLiteral value: Int) { self.init(rawValue: value) }
}

extension OpenCode where Self: ExpressibleByStringLiteral, RawValue == String {
    public init(stringLiteral value: String) { self.init(rawValue: value) }
}
