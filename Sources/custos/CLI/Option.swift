import Foundation

/// An option declared once: its name, placeholder, default and help, and how its text becomes a
/// `Value`. The parser converts it before the command runs (a bad value is a usage error, exit
/// 2), so a command reads `arguments[option]` already typed.
struct Option<Value: Sendable>: Sendable {
    let spec: OptionSpec
    let defaultValue: Value

    /// A value option. `convert` answers nil for text it does not take; `expected` says what it
    /// takes ("an integer in 1...500") in the error. A converted value that is itself nothing
    /// (an optional `Value` whose closure answered `Wrapped?`, promoted to `.some(nil)`) is
    /// refused too, never read as "not given".
    init(_ name: String, _ placeholder: String, default defaultValue: Value, shownDefault: String? = nil, help: String,
         expected: String, convert: @escaping @Sendable (String) -> Value?) {
        self.defaultValue = defaultValue
        spec = OptionSpec(name: name, valueName: placeholder, help: help, isSwitch: false, defaultText: shownDefault) { text in
            guard let value = convert(text), !((value as? any OptionalValue)?.isNothing ?? false) else {
                throw UsageError("--\(name) must be \(expected), got '\(text)'")
            }
            return value
        }
    }
}

/// Optional's mark: whether a converted value is nothing at all.
private protocol OptionalValue {
    var isNothing: Bool { get }
}

extension Optional: OptionalValue {
    fileprivate var isNothing: Bool { self == nil }
}

extension Option {
    /// An option with no default of its own: nil when not given. `convert` answers nil for
    /// text it does not take, which is refused.
    init<Wrapped>(optional name: String, _ placeholder: String, help: String, expected: String,
                  convert: @escaping @Sendable (String) -> Wrapped?) where Value == Wrapped? {
        self.init(name, placeholder, default: nil, help: help, expected: expected) { text in convert(text).map { .some($0) } }
    }
}

extension Option where Value == String? {
    /// Text, nil when not given.
    static func text(_ name: String, _ placeholder: String, help: String) -> Self {
        Option(optional: name, placeholder, help: help, expected: "text") { $0 }
    }
}

extension Option where Value == String {
    /// Text with a default.
    static func text(_ name: String, _ placeholder: String, default value: String, help: String) -> Self {
        Option(name, placeholder, default: value, shownDefault: value.contains(" ") ? "'\(value)'" : value, help: help, expected: "text") { $0 }
    }

    /// One of a few words.
    static func choice(_ name: String, _ choices: [String], default value: String, help: String) -> Self {
        Option(name, name.uppercased(), default: value, shownDefault: value, help: help, expected: choices.joined(separator: " or ")) { choices.contains($0) ? $0 : nil }
    }
}

extension Option where Value == String? {
    /// One of a few words, nil when not given (the command has its own default).
    static func choice(_ name: String, _ placeholder: String, _ choices: [String], help: String) -> Self {
        Option(optional: name, placeholder, help: help, expected: choices.joined(separator: " or ")) { choices.contains($0) ? $0 : nil }
    }
}

extension Option where Value == Int? {
    /// An integer in `range`, nil when not given (the command has its own default).
    static func integer(_ name: String, _ placeholder: String = "N", in range: ClosedRange<Int>, help: String) -> Self {
        Option(optional: name, placeholder, help: help, expected: integerExpectation(range)) { text in
            Int(text).flatMap { range.contains($0) ? $0 : nil }
        }
    }
}

extension Option where Value == Double? {
    /// A number for which `accepts` holds (`expected` says which), nil when not given.
    static func number(_ name: String, _ placeholder: String, expected: String, help: String,
                       accepts: @escaping @Sendable (Double) -> Bool) -> Self {
        Option(optional: name, placeholder, help: help, expected: expected) { text in Double(text).flatMap { accepts($0) ? $0 : nil } }
    }
}

extension Option where Value: FixedWidthInteger {
    /// An integer in `range`.
    static func integer(_ name: String, _ placeholder: String = "N", in range: ClosedRange<Value>, default value: Value,
                        help: String) -> Self {
        Option(name, placeholder, default: value, shownDefault: "\(value)", help: help, expected: integerExpectation(range)) { text in
            Value(text).flatMap { range.contains($0) ? $0 : nil }
        }
    }
}

/// A frame rate in (0, 240] frames per second.
private let framesPerSecondRange = "a number in (0, 240]"
private func framesPerSecond(_ text: String) -> Double? { Double(text).flatMap { $0 > 0 && $0 <= 240 ? $0 : nil } }

extension Option where Value == Double {
    static func framesPerSecond(_ name: String, default value: Double, help: String) -> Self {
        Option(name, "FPS", default: value, shownDefault: "\(value.formatted())", help: help, expected: framesPerSecondRange,
               convert: custos.framesPerSecond)
    }
}

extension Option where Value == Double? {
    /// A frame rate with no default of its own.
    static func framesPerSecond(_ name: String, help: String) -> Self {
        Option(optional: name, "FPS", help: help, expected: framesPerSecondRange, convert: custos.framesPerSecond)
    }
}

extension Option where Value == URL? {
    /// A file or folder path, nil when not given.
    static func path(_ name: String, _ placeholder: String = "PATH", help: String) -> Self {
        Option(optional: name, placeholder, help: help, expected: "a path") { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
    }
}

private extension Double {
    /// `12` rather than `12.0`.
    func formatted() -> String { self == rounded() ? String(Int(self)) : String(self) }
}

/// An option the command cannot run without, made from an optional one (`Option.required`):
/// the parser refuses a command line without it ("--user USER is required", exit 2) before
/// the command runs, and the command reads its value unwrapped.
struct Required<Value: Sendable>: Sendable {
    let spec: OptionSpec
}

extension Option {
    /// This option, required by the command that lists it (another command may list it as optional).
    func required<Wrapped>() -> Required<Wrapped> where Value == Wrapped? {
        var spec = self.spec
        spec.isRequired = true
        return Required(spec: spec)
    }
}

/// A boolean option: `--name` is true, absent false.
struct Flag: Sendable {
    let spec: OptionSpec
    init(_ name: String, help: String) { spec = .flag(name, help) }
}

/// A positional argument, described in `--help`. `repeating` takes any number (zero or more)
/// and must be the last.
struct Argument: Sendable {
    let name: String
    let help: String
    var repeating = false

    init(_ name: String, help: String, repeating: Bool = false) {
        self.name = name
        self.help = help
        self.repeating = repeating
    }

    var placeholder: String { name.uppercased() + (repeating ? "..." : "") }
}

extension ParsedArguments {
    /// A declared argument's value; a repeating one's are `positionals` from its place on.
    subscript(_ argument: Argument) -> String { named[argument.name] ?? "" }

    subscript<Value>(_ option: Option<Value>) -> Value {
        // The parser stored the converted value under the name (see `OptionSpec.convert`).
        (typed[option.spec.name] as? Value) ?? option.defaultValue
    }

    subscript(_ flag: Flag) -> Bool { has(flag.spec.name) }

    /// Every value given for an option that may be repeated (`--action`, `--redirect-uri`), in order.
    func every(_ option: OptionSpec) -> [String] { repeatedValues[option.name] ?? [] }

    /// A required option's value (the parser refused the command line without it).
    subscript<Value>(_ option: Required<Value>) -> Value {
        get throws(UsageError) {
            guard let value = typed[option.spec.name] as? Value else { throw option.spec.missing }
            return value
        }
    }
}
