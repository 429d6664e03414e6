/// A command-line option: `--name VALUE` (or `--name=VALUE`), a boolean `--name`, or a
/// switch: `--name` (true) or `--name=true|false`.
struct OptionSpec: Sendable {
    let name: String
    let valueName: String?
    let help: String
    /// A switch also takes `=true` or `=false`.
    let isSwitch: Bool
    /// The default as `--help` shows it; nil when there is none to show.
    var defaultText: String? = nil
    /// Turns the text into the typed value a command reads (see `Option`); a usage error when
    /// it does not fit.
    var convert: (@Sendable (String) throws -> any Sendable)? = nil
    /// The command cannot run without it (see `Required`): the parser refuses a command line
    /// that leaves it out.
    var isRequired = false

    static func value(_ name: String, _ valueName: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, valueName: valueName, help: help, isSwitch: false)
    }
    static func flag(_ name: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, valueName: nil, help: help, isSwitch: false)
    }
    /// A boolean that can also be turned off: `--name=false`. Read it with `value(name)`
    /// (`"true"` or `"false"`, nil when not given).
    static func `switch`(_ name: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, valueName: nil, help: help, isSwitch: true)
    }

    var takesValue: Bool { valueName != nil }

    /// How `--help` shows it.
    var synopsis: String {
        "--\(name)" + (valueName.map { " \($0)" } ?? "") + (isSwitch ? "[=true|false]" : "")
    }

    /// The help line with the default, unless the help already says it, or that it is required.
    var helpWithDefault: String {
        if isRequired { return "\(help) (required)" }
        guard let defaultText, !help.contains("(default") else { return help }
        return "\(help) (default \(defaultText))"
    }

    /// The usage error for a command line that leaves a required option out.
    var missing: UsageError { UsageError("--\(name)\(valueName.map { " " + $0 } ?? "") is required") }
}

/// What a command accepts, for parsing and for `--help`.
struct CommandSpec: Sendable {
    let path: String
    let summary: String
    let options: [OptionSpec]
    let arguments: [Argument]
    /// A command line to copy, shown last in `--help`.
    let example: String?

    init(path: String, summary: String, options: [OptionSpec] = [], arguments: [Argument] = [], example: String? = nil) {
        self.path = path
        self.summary = summary
        self.options = options
        self.arguments = arguments
        self.example = example
    }

    /// Unconverted commands name their arguments without describing them.
    init(path: String, summary: String, options: [OptionSpec] = [], positionals: [String], example: String? = nil) {
        let arguments = positionals.map { name in
            name.hasSuffix("...") ? Argument(String(name.dropLast(3)), help: "", repeating: true) : Argument(name, help: "")
        }
        self.init(path: path, summary: summary, options: options, arguments: arguments, example: example)
    }

    var usage: String {
        var parts = ["custos", path]
        if !options.isEmpty { parts.append("[options]") }
        parts += arguments.map(\.placeholder)
        return parts.joined(separator: " ")
    }

    var help: String {
        var lines = ["usage: \(usage)", "", summary]
        let described = arguments.filter { !$0.help.isEmpty }
        if !described.isEmpty {
            lines += ["", "arguments:"] + Self.table(described.map { ($0.placeholder, $0.help) })
        }
        if !options.isEmpty {
            lines += ["", "options:"] + Self.table(options.map { ($0.synopsis, $0.helpWithDefault) } + [("--help", "show this help")])
        }
        if let example { lines += ["", "example:", "  " + example] }
        return lines.joined(separator: "\n")
    }

    /// Two aligned columns.
    static func table(_ rows: [(String, String)]) -> [String] {
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { "  " + $0.0 + String(repeating: " ", count: width - $0.0.count + 2) + $0.1 }
    }
}

/// A command line that does not fit its command's spec; the message is one line.
struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

struct ParsedArguments {
    var values: [String: String] = [:]
    /// Every value of each option, in order (an option given more than once, such as `--action`).
    var repeatedValues: [String: [String]] = [:]
    var flags: Set<String> = []
    var positionals: [String] = []
    /// Declared options' converted values, by name (see `Option`).
    var typed: [String: any Sendable] = [:]
    /// Positional arguments by their declared name.
    var named: [String: String] = [:]
    var wantsHelp = false

    func value(_ name: String) -> String? { values[name] }
    func has(_ flag: String) -> Bool { flags.contains(flag) }
}

/// A small hand-written parser: options anywhere, `--` ends options, `--help`/`-h` wins.
enum ArgumentParser {
    static func parse(_ arguments: [String], spec: CommandSpec) throws -> ParsedArguments {
        var result = ParsedArguments()
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                result.positionals.append(argument)
                continue
            }
            if argument == "--" { optionsEnded = true; continue }
            if argument == "--help" || argument == "-h" { result.wantsHelp = true; continue }
            guard argument.hasPrefix("--") else { throw UsageError("unknown option '\(argument)'") }

            let body = argument.dropFirst(2)
            let name: String
            var inlineValue: String?
            if let equals = body.firstIndex(of: "=") {
                name = String(body[..<equals])
                inlineValue = String(body[body.index(after: equals)...])
            } else {
                name = String(body)
            }
            guard let option = spec.options.first(where: { $0.name == name }) else {
                throw UsageError("unknown option '--\(name)'")
            }
            if option.takesValue {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard index < arguments.count else { throw UsageError("option '--\(name)' needs a value") }
                    value = arguments[index]
                    index += 1
                }
                result.values[name] = value
                result.repeatedValues[name, default: []].append(value)
                if let convert = option.convert { result.typed[name] = try convert(value) }
            } else if option.isSwitch {
                let value = inlineValue ?? "true"
                // Only the two spellings `--help` shows; anything else reads as a value it does not take.
                guard value == "true" || value == "false" else { throw UsageError("option '--\(name)' takes no value") }
                if inlineValue == nil, index < arguments.count, ["true", "false"].contains(arguments[index]) {
                    throw UsageError("write '--\(name)=\(arguments[index])' (a switch takes its value after '=')")
                }
                result.values[name] = value
            } else {
                guard inlineValue == nil else { throw UsageError("option '--\(name)' takes no value") }
                result.flags.insert(name)
            }
        }
        if !result.wantsHelp {
            if let left = spec.options.first(where: { $0.isRequired && result.values[$0.name] == nil }) { throw left.missing }
            try checkPositionals(result.positionals, spec: spec)
            for (argument, value) in zip(spec.arguments, result.positionals) { result.named[argument.name] = value }
        }
        return result
    }

    private static func checkPositionals(_ positionals: [String], spec: CommandSpec) throws {
        let variadic = spec.arguments.last?.repeating ?? false
        let required = spec.arguments.count - (variadic ? 1 : 0)
        if positionals.count < required {
            throw UsageError("missing argument \(spec.arguments[positionals.count].name.uppercased())")
        }
        if !variadic && positionals.count > required {
            throw UsageError("unexpected argument '\(positionals[required])'")
        }
    }
}
