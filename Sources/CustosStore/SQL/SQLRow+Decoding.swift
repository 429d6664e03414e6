import CustosCore
import Foundation

extension SQLRow {
    /// nil for SQL NULL, the date otherwise (see `SQLTime`).
    func optionalDate(_ index: Int) throws -> Date? {
        isNull(index) ? nil : try date(index)
    }

    /// nil for SQL NULL, the text otherwise.
    func optionalString(_ index: Int) throws -> String? {
        isNull(index) ? nil : try string(index)
    }

    /// An enum stored as its raw text. A value this program does not know (written by a newer
    /// version, or by hand) is `StoreError.failure` naming `column`, never a crash.
    func enumValue<T: RawRepresentable>(_: T.Type, _ index: Int, column: String) throws -> T where T.RawValue == String {
        let raw = try string(index)
        guard let value = T(rawValue: raw) else {
            throw StoreError.failure("\(column): unknown value \"\(raw)\"")
        }
        return value
    }

    /// An enum stored as its integer raw value, checked the same way.
    func enumValue<T: RawRepresentable>(_: T.Type, _ index: Int, column: String) throws -> T where T.RawValue == Int {
        let raw = try int(index)
        guard let value = T(rawValue: raw) else {
            throw StoreError.failure("\(column): unknown value \(raw)")
        }
        return value
    }
}

extension SQLValue {
    /// A value stored as JSON text: keys sorted, slashes as they are (one form for every table).
    static func json<T: Encodable>(_ value: T) throws -> SQLValue {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return .text(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// A date as milliseconds since 1970 (see `SQLTime`).
    static func date(_ date: Date) -> SQLValue {
        .integer(SQLTime.milliseconds(date))
    }

    /// A date as milliseconds since 1970, or NULL.
    static func optionalDate(_ date: Date?) -> SQLValue {
        date.map { .date($0) } ?? .null
    }

    /// Text, or NULL.
    static func optionalText(_ text: String?) -> SQLValue {
        text.map { .text($0) } ?? .null
    }
}
