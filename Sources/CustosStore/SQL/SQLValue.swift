import CustosCore
import Foundation

/// A value bound to, or read from, a SQL statement. Both dialects map onto these five cases.
enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}

extension SQLValue: CustomStringConvertible {
    /// A log-safe description: blobs and text show their size, never their content.
    var description: String {
        switch self {
        case .null: return "NULL"
        case .integer(let v): return "integer(\(v))"
        case .real(let v): return "real(\(v))"
        case .text(let s): return "text(\(s.utf8.count) bytes)"
        case .blob(let d): return "blob(\(d.count) bytes)"
        }
    }
}

/// One result row, columns addressed by position (the order of the SELECT / RETURNING list).
struct SQLRow: Sendable, Equatable {
    let values: [SQLValue]

    init(_ values: [SQLValue]) {
        self.values = values
    }

    var count: Int { values.count }

    subscript(_ index: Int) -> SQLValue {
        index >= 0 && index < values.count ? values[index] : .null
    }

    func isNull(_ index: Int) -> Bool {
        self[index] == .null
    }

    func int64(_ index: Int) throws -> Int64 {
        switch self[index] {
        case .integer(let v): return v
        case .real(let d) where d.rounded() == d && abs(d) < 9.0e18: return Int64(d)
        case .text(let s):
            if let v = Int64(s) { return v }
        default: break
        }
        throw StoreError.failure("column \(index): expected an integer, found \(self[index])")
    }

    func int(_ index: Int) throws -> Int {
        Int(try int64(index))
    }

    func double(_ index: Int) throws -> Double {
        switch self[index] {
        case .real(let d): return d
        case .integer(let v): return Double(v)
        default: throw StoreError.failure("column \(index): expected a number, found \(self[index])")
        }
    }

    func string(_ index: Int) throws -> String {
        switch self[index] {
        case .text(let s): return s
        case .blob(let d): return String(decoding: d, as: UTF8.self)
        default: throw StoreError.failure("column \(index): expected text, found \(self[index])")
        }
    }

    func data(_ index: Int) throws -> Data {
        switch self[index] {
        case .blob(let d): return d
        case .text(let s): return Data(s.utf8)
        default: throw StoreError.failure("column \(index): expected a blob, found \(self[index])")
        }
    }

    func bool(_ index: Int) throws -> Bool {
        try int64(index) != 0
    }

    /// Dates are stored as milliseconds since 1970 (see `SQLTime`).
    func date(_ index: Int) throws -> Date {
        SQLTime.date(fromMilliseconds: try int64(index))
    }
}
