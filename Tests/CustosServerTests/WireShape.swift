import Foundation

/// The JSON fields a `Decodable` type reads, which of them it requires, and the fields of the
/// objects nested in them: found by decoding the type from a decoder that answers every
/// question with a placeholder and writes down what was asked. An optional field is asked
/// `decodeNil` before its value; a required one never is.
final class WireShape {
    final class Field {
        var required = true
        var nested: WireShape?
    }

    private(set) var fields: [String: Field] = [:]

    var requiredNames: Set<String> { Set(fields.filter { $0.value.required }.keys) }
    var names: Set<String> { Set(fields.keys) }

    static func of(_ type: any Decodable.Type) throws -> WireShape {
        let probe = ShapeProbe()
        _ = try type.init(from: probe)
        return probe.objectShape ?? probe.elementShape ?? WireShape()
    }

    fileprivate func field(_ name: String) -> Field {
        if let field = fields[name] { return field }
        let field = Field()
        fields[name] = field
        return field
    }
}

/// The decoder behind `WireShape.of`.
private final class ShapeProbe: Decoder {
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]
    /// Set when the type decoded itself as an object.
    var objectShape: WireShape?
    /// Set when it decoded itself as an array of objects: the elements' shape.
    var elementShape: WireShape?

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        let shape = objectShape ?? WireShape()
        objectShape = shape
        return KeyedDecodingContainer(KeyedProbe<Key>(shape: shape))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { UnkeyedProbe(owner: self) }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleProbe() }

    /// A placeholder of `type`, probing it when it is an object or an array of them.
    static func placeholder<T: Decodable>(_ type: T.Type) throws -> (T, WireShape?) {
        if let value = SingleProbe.primitive(type) { return (value, nil) }
        let probe = ShapeProbe()
        let value = try T(from: probe)
        return (value, probe.objectShape ?? probe.elementShape)
    }
}

private struct KeyedProbe<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let shape: WireShape
    var codingPath: [any CodingKey] = []
    var allKeys: [Key] { [] }

    func contains(_ key: Key) -> Bool { true }

    func decodeNil(forKey key: Key) throws -> Bool {
        shape.field(key.stringValue).required = false
        return false
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let field = shape.field(key.stringValue)
        let (value, nested) = try ShapeProbe.placeholder(type)
        field.nested = nested
        return value
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        let nested = WireShape()
        shape.field(key.stringValue).nested = nested
        return KeyedDecodingContainer(KeyedProbe<NestedKey>(shape: nested))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { UnkeyedProbe(owner: ShapeProbe()) }
    func superDecoder() throws -> any Decoder { ShapeProbe() }
    func superDecoder(forKey key: Key) throws -> any Decoder { ShapeProbe() }
}

/// One element, then the end.
private struct UnkeyedProbe: UnkeyedDecodingContainer {
    let owner: ShapeProbe
    var codingPath: [any CodingKey] = []
    var count: Int? { 1 }
    var currentIndex = 0
    var isAtEnd: Bool { currentIndex >= 1 }

    mutating func decodeNil() throws -> Bool { false }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        currentIndex += 1
        let (value, nested) = try ShapeProbe.placeholder(type)
        if let nested { owner.elementShape = nested }
        return value
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        currentIndex += 1
        return KeyedDecodingContainer(KeyedProbe<NestedKey>(shape: WireShape()))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { UnkeyedProbe(owner: ShapeProbe()) }
    mutating func superDecoder() throws -> any Decoder { ShapeProbe() }
}

private struct SingleProbe: SingleValueDecodingContainer {
    var codingPath: [any CodingKey] = []

    func decodeNil() -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if let value = Self.primitive(type) { return value }
        return try ShapeProbe.placeholder(type).0
    }

    /// A placeholder for the JSON scalars and the Foundation types encoded as one.
    static func primitive<T>(_ type: T.Type) -> T? {
        let values: [Any] = ["x", 0, Int64(0), Int32(0), UInt8(0), UInt64(0), 0.0, Float(0), false, Date(timeIntervalSince1970: 0), Data()]
        return values.lazy.compactMap { $0 as? T }.first
    }
}
