import CustosAPI

/// `custos version`, also `custos --version`.
enum VersionCommand {
    static let command = Command(spec: CommandSpec(path: "version", summary: "Print the Custos version (also: custos --version).")) { _ in
        Console.out("custos \(CustosVersion.current)")
        return .ok
    }
}

enum HelpCommand {
    static let command = Command(spec: CommandSpec(
        path: "help", summary: "Show the commands, a group's commands, or one command's help.",
        arguments: [Argument("command", help: "a command or group, e.g. 'admin user' or 'admin user create'", repeating: true)],
        example: "custos help admin user")
    ) { arguments in
        let words = arguments.positionals
        if words.isEmpty {
            Console.out(CommandLineTool.overview)
        } else if let (target, _) = CommandLineTool.resolve(words) {
            Console.out(target.spec.help)
        } else if let listing = CommandGroups.listing(words) {
            Console.out(listing)
        } else {
            let suggestion = CommandGroups.suggestion(for: words).map { "; did you mean '\($0)'?" } ?? ""
            throw UsageError("unknown command '\(words.joined(separator: " "))'\(suggestion)")
        }
        return .ok
    }
}
