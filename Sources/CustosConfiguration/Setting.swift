import Foundation

/// One configuration setting, declared once: its three names — the config-file key
/// (`data_dir`), the flag (`--data-dir`) and the environment variable (`CUSTOS_DATA_DIR`) —,
/// its help, whether it is a secret, how its text is parsed and checked, and where the value
/// goes in `ServerConfiguration`. A setting is only made through the typed constructors
/// (`integer`, `text`, `choice`…), so it cannot exist without a parser and a place to go.
/// Defaults are `ServerConfiguration`'s own.
public struct Setting: Sendable {
    /// Why a value was refused, e.g. `'eighty' is not an integer in 0...65535`.
    struct Invalid: Error {
        let reason: String
    }

    /// The config-file key, snake_case.
    public let key: String
    public let help: String
    /// Masked when the configuration is printed.
    public let isSecret: Bool
    /// A switch on the command line: `--dev` turns it on, `--dev=false` off.
    public let isBoolean: Bool
    /// Parses and checks the text, then applies it; throws `Invalid`.
    private let assign: @Sendable (String, inout ServerConfiguration) throws -> Void

    init<Value>(_ key: String, help: String, secret: Bool = false, boolean: Bool = false,
                parse: @escaping @Sendable (String) throws -> Value,
                apply: @escaping @Sendable (inout ServerConfiguration, Value) -> Void) {
        self.key = key
        self.help = help
        self.isSecret = secret
        self.isBoolean = boolean
        assign = { text, configuration in apply(&configuration, try parse(text)) }
    }

    public var flag: String { "--" + key.replacingOccurrences(of: "_", with: "-") }
    public var environmentVariable: String { "CUSTOS_" + key.uppercased() }

    /// Sets the value `text` stands for in `configuration`; throws `Invalid` with the reason.
    func apply(_ text: String, to configuration: inout ServerConfiguration) throws {
        try assign(text, &configuration)
    }
}

extension Setting: Hashable {
    public static func == (a: Setting, b: Setting) -> Bool { a.key == b.key }
    public func hash(into hasher: inout Hasher) { hasher.combine(key) }
}

extension Setting {
    static func integer(_ key: String, _ range: ClosedRange<Int>, help: String,
                        apply: @escaping @Sendable (inout ServerConfiguration, Int) -> Void) -> Setting {
        number(key, range, named: "an integer", help: help, apply: apply)
    }

    static func decimal(_ key: String, _ range: ClosedRange<Double>, help: String,
                        apply: @escaping @Sendable (inout ServerConfiguration, Double) -> Void) -> Setting {
        number(key, range, named: "a number", help: help, apply: apply)
    }

    private static func number<Value: Comparable & LosslessStringConvertible & Sendable>(
        _ key: String, _ range: ClosedRange<Value>, named noun: String, help: String,
        apply: @escaping @Sendable (inout ServerConfiguration, Value) -> Void
    ) -> Setting {
        Setting(key, help: help, parse: { text in
            guard let number = Value(text.trimmingCharacters(in: .whitespaces)), range.contains(number) else {
                throw Invalid(reason: "'\(text)' is not \(noun) in \(range.lowerBound)...\(range.upperBound)")
            }
            return number
        }, apply: apply)
    }

    static func boolean(_ key: String, help: String, apply: @escaping @Sendable (inout ServerConfiguration, Bool) -> Void) -> Setting {
        Setting(key, help: help, boolean: true, parse: { text in
            switch text.lowercased() {
            case "1", "true", "yes", "on": return true
            case "0", "false", "no", "off", "": return false
            default: throw Invalid(reason: "'\(text)' is not a boolean (true/false)")
            }
        }, apply: apply)
    }

    /// Non-empty text, further parsed by `parse` (which throws `Invalid`).
    static func text<Value>(_ key: String, help: String, secret: Bool = false,
                            parse: @escaping @Sendable (String) throws -> Value,
                            apply: @escaping @Sendable (inout ServerConfiguration, Value) -> Void) -> Setting {
        Setting(key, help: help, secret: secret, parse: { text in
            guard !text.isEmpty else { throw Invalid(reason: "must not be empty") }
            return try parse(text)
        }, apply: apply)
    }

    /// Non-empty text, taken as it is.
    static func text(_ key: String, help: String, secret: Bool = false,
                     apply: @escaping @Sendable (inout ServerConfiguration, String) -> Void) -> Setting {
        text(key, help: help, secret: secret, parse: { $0 }, apply: apply)
    }

    /// One of `Value`'s cases, by `name`, case-insensitively.
    static func choice<Value: CaseIterable & Sendable>(_ key: String, named name: @escaping @Sendable (Value) -> String, help: String,
                                                       apply: @escaping @Sendable (inout ServerConfiguration, Value) -> Void) -> Setting {
        Setting(key, help: help, parse: { text in
            guard let value = Value.allCases.first(where: { name($0) == text.lowercased() }) else {
                throw Invalid(reason: "'\(text)' is not one of \(Value.allCases.map(name).joined(separator: ", "))")
            }
            return value
        }, apply: apply)
    }
}
