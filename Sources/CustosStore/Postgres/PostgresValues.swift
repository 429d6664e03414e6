import CustosCore
import Foundation

/// Binary-format encoding of parameters and decoding of results for the handful of types the
/// stores use. Integers travel in network byte order.
enum PostgresValues {
    enum OID {
        static let bool: UInt32 = 16
        static let bytea: UInt32 = 17
        static let name: UInt32 = 19
        static let int8: UInt32 = 20
        static let int2: UInt32 = 21
        static let int4: UInt32 = 23
        static let text: UInt32 = 25
        static let oid: UInt32 = 26
        static let json: UInt32 = 114
        static let float4: UInt32 = 700
        static let float8: UInt32 = 701
        static let unknown: UInt32 = 705
        static let bpchar: UInt32 = 1042
        static let varchar: UInt32 = 1043
        static let void: UInt32 = 2278
    }

    /// A parameter ready for `PQexecParams`: type OID and binary bytes (nil for SQL NULL).
    struct Parameter {
        var type: UInt32
        var bytes: [UInt8]?
    }

    static func parameter(_ value: SQLValue) -> Parameter {
        switch value {
        case .null:
            return Parameter(type: 0, bytes: nil)
        case .integer(let v):
            return Parameter(type: OID.int8, bytes: withUnsafeBytes(of: v.bigEndian) { Array($0) })
        case .real(let v):
            return Parameter(type: OID.float8, bytes: withUnsafeBytes(of: v.bitPattern.bigEndian) { Array($0) })
        case .text(let s):
            // The binary form of text is its UTF-8 bytes.
            return Parameter(type: OID.text, bytes: Array(s.utf8))
        case .blob(let d):
            return Parameter(type: OID.bytea, bytes: Array(d))
        }
    }

    /// Decodes one binary-format result value of type `oid`.
    static func decode(_ bytes: UnsafeRawBufferPointer, oid: UInt32) throws -> SQLValue {
        func integer<T: FixedWidthInteger>(_: T.Type) throws -> T {
            guard bytes.count == MemoryLayout<T>.size else {
                throw StoreError.failure("PostgreSQL value of type \(oid) has \(bytes.count) bytes")
            }
            return T(bigEndian: bytes.loadUnaligned(as: T.self))
        }
        switch oid {
        case OID.int8: return .integer(try integer(Int64.self))
        case OID.int4: return .integer(Int64(try integer(Int32.self)))
        case OID.int2: return .integer(Int64(try integer(Int16.self)))
        case OID.oid: return .integer(Int64(try integer(UInt32.self)))
        case OID.bool: return .integer(try integer(UInt8.self) != 0 ? 1 : 0)
        case OID.float8: return .real(Double(bitPattern: try integer(UInt64.self)))
        case OID.float4: return .real(Double(Float(bitPattern: try integer(UInt32.self))))
        case OID.text, OID.varchar, OID.bpchar, OID.name, OID.unknown, OID.json:
            return .text(String(decoding: bytes, as: UTF8.self))
        case OID.bytea: return .blob(Data(bytes))
        case OID.void: return .null
        default:
            throw StoreError.failure("PostgreSQL result type \(oid) is not supported by the store layer")
        }
    }
}
