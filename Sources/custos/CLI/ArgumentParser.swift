/// A command-line option: `--name VALUE` (or `--name=VALUE`), a boolean `--name`, or a
/// switch: `--name` (true) or `--name=true|false`.
struct OptionSpec: Sendable {
    let name: String
    let valueName: String?
    let help: String
    /// A switch also takes `=true` or `=false`.
    let isSwitch: Bool

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
}

/// What a command accepts, for parsing and for `--help`.
struct CommandSpec: Sendable {
    let path: String
    let summary: String
    let options: [OptionSpec]
    /// Names of positional arguments; a trailing `...` on the last takes any number (zero or more).
    let positionals: [String]

    init(path: String, summary: String, options: [OptionSpec] = [], positionals: [String] = []) {
        self.path = path
        self.summary = summary
        self.options = options
        self.positionals = positionals
    }

    var usage: String {
        var parts = ["custos", path]
        if !options.isEmpty { parts.append("[options]") }
        parts += positionals.map { $0.uppercased() }
        return parts.joined(separator: " ")
    }

    var help: String {
        var lines = ["usage: \(usage)", "", summary]
        if !options.isEmpty {
            lines.append("")
            lines.append("options:")
            let rendered = options.map { ($0.synopsis, $0.help) } + [("--help", "show this help")]
            let width = rendered.map(\.0.count).max() ?? 0
            for (left, right) in rendered {
                lines.append("  " + left + String(repeating: " ", count: width - left.count + 2) + right)
            }
        }
        return lines.joined(separator: "\n")
    }
}

/// A command line that does not fit its command's spec; the message is one line.
struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

struct ParsedArguments {
    var values: [String: String] = [:]
    var flags: Set<String> = []
    var positionals: [String] = []
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
                if let inlineValue {
                    result.values[name] = inlineValue
                } else {
                    guard index < arguments.count else { throw UsageError("option '--\(name)' needs a value") }
                    result.values[name] = arguments[index]
                    index += 1
                }
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
        if !result.wantsHelp { try checkPositionals(result.positionals, spec: spec) }
        return result
    }

    private static func checkPositionals(_ positionals: [String], spec: CommandSpec) throws {
        let variadic = spec.positionals.last?.hasSuffix("...") ?? false
        let required = spec.positionals.count - (variadic ? 1 : 0)
        if positionals.count < required {
            let missing = spec.positionals[positionals.count].replacingOccurrences(of: "...", with: "")
            throw UsageError("missing argument \(missing.uppercased())")
        }
        if !variadic && positionals.count > required {
            throw UsageError("unexpected argument '\(positionals[required])'")
        }
    }
}
