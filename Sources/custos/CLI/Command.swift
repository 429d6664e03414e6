import CustosEval
import CustosRuntime
import Foundation

/// One `custos` subcommand: its spec, a check of its options run before anything else, and
/// what it does.
struct Command: Sendable {
    let spec: CommandSpec
    /// Option combinations and ranges the parser cannot see alone: a `UsageError` here exits 2
    /// before the command touches a file, a database or a server.
    let validate: @Sendable (ParsedArguments) throws -> Void
    let run: @Sendable (ParsedArguments) async throws -> ExitCode

    init(spec: CommandSpec, validate: @escaping @Sendable (ParsedArguments) throws -> Void = { _ in },
         run: @escaping @Sendable (ParsedArguments) async throws -> ExitCode) {
        self.spec = spec
        self.validate = validate
        self.run = run
    }
}

/// Writes to the terminal; `fflush(nil)` because `stdout` is not concurrency-safe in Swift 6.
enum Console {
    static func out(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}

/// Finds the command named by the leading words of the arguments, parses the rest and runs it,
/// turning every failure into a one-line message and a typed exit status.
enum CommandLineTool {
    static func main(_ arguments: [String]) async -> ExitCode {
        var words = Array(arguments.dropFirst())
        if words.isEmpty || words == ["--help"] || words == ["-h"] {
            Console.out(overview)
            return words.isEmpty ? .usage : .ok
        }
        if words == ["--version"] { words[0] = "version" }
        guard let (command, rest) = resolve(words) else { return unresolved(words) }
        do {
            let parsed = try ArgumentParser.parse(rest, spec: command.spec)
            if parsed.wantsHelp {
                Console.out(command.spec.help)
                return .ok
            }
            try command.validate(parsed)
            return try await command.run(parsed)
        } catch let error as UsageError {
            return usage(error.message, command)
        } catch let error as RuntimeError where error.kind == .configuration {
            return usage(error.message, command)
        } catch let error as EvalError {
            // A data set or pairs file the command was pointed at that is missing or malformed.
            return usage(error.message, command)
        } catch {
            Console.error("custos \(command.spec.path): \(error)")
            return .failure
        }
    }

    private static func usage(_ message: String, _ command: Command) -> ExitCode {
        Console.error("custos \(command.spec.path): \(message) (see custos \(command.spec.path) --help)")
        return .usage
    }

    /// Words that name no command: a group lists its subcommands (on stdout, exit 0 when help
    /// was asked for; on stderr, exit 2 when a subcommand is missing); anything else is
    /// unknown, with the nearest command when one is close.
    private static func unresolved(_ words: [String]) -> ExitCode {
        let named = Array(words.prefix { !$0.hasPrefix("-") })
        let wantsHelp = words.contains("--help") || words.contains("-h")
        if let listing = CommandGroups.listing(named) {
            if wantsHelp {
                Console.out(listing)
                return .ok
            }
            Console.error(listing)
            return .usage
        }
        var message = "custos: unknown command '\(named.joined(separator: " "))'"
        if let suggestion = CommandGroups.suggestion(for: named) { message += "; did you mean '\(suggestion)'?" }
        Console.error(message + " (see custos help)")
        return .usage
    }

    /// The longest command path that prefixes the words.
    static func resolve(_ words: [String]) -> (Command, [String])? {
        let candidates = allCommands.filter { command in
            let path = command.spec.path.split(separator: " ").map(String.init)
            return words.count >= path.count && Array(words.prefix(path.count)) == path
        }
        guard let best = candidates.max(by: { $0.spec.path.count < $1.spec.path.count }) else { return nil }
        return (best, Array(words.dropFirst(best.spec.path.split(separator: " ").count)))
    }

    static let allCommands: [Command] = [ServeCommand.command, MigrateCommand.command]
        + AdminAPIKeyCommands.all + AdminAuditCommands.all + [AdminKeysCommand.rotate, AdminKeysCommand.rotateSigning, AdminMasterKeyCommand.rotate] + AdminUserCommands.all + DeviceCommands.all
        + IDVCommands.all + AdminIDVCommands.all + NotifyCommands.all + NotificationCommands.all + OIDCClientCommands.all + SignInCommands.all + DeviceRegistrationCommands.all
        + [BenchLoginCommand.command, BenchIDVCommand.command, BenchNotifyCommand.command, BenchTokenCommand.command, BenchFillCommand.command]
        + [DemoCommand.command, VersionCommand.command, HelpCommand.command] + FaceCommands.all

    static var overview: String {
        (["usage: custos COMMAND [options]", "", "commands:"]
            + CommandSpec.table(allCommands.map { ($0.spec.path, $0.spec.summary) })
            + ["", "Run 'custos COMMAND --help' for a command's options, 'custos --version' for the version."])
            .joined(separator: "\n")
    }
}
