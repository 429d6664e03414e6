import CustosAPI

enum VersionCommand {
    static let command = Command(spec: CommandSpec(path: "version", summary: "Print the Custos version.")) { _ in
        Console.out("custos \(CustosVersion.current)")
        return .ok
    }
}

enum HelpCommand {
    static let command = Command(spec: CommandSpec(path: "help", summary: "Show the commands, or one command's help.",
                                                   positionals: ["command..."])) { arguments in
        if arguments.positionals.isEmpty {
            Console.out(CommandLineTool.overview)
            return .ok
        }
        guard let (target, _) = CommandLineTool.resolve(arguments.positionals) else {
            throw UsageError("unknown command '\(arguments.positionals.joined(separator: " "))'")
        }
        Console.out(target.spec.help)
        return .ok
    }
}
