import CustosRuntime
import Foundation

/// One `custos` subcommand: its spec and what it does.
struct Command: Sendable {
    let spec: CommandSpec
    let run: @Sendable (ParsedArguments) throws -> ExitCode
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
    static func main(_ arguments: [String]) -> ExitCode {
        let words = Array(arguments.dropFirst())
        if words.isEmpty || words == ["--help"] || words == ["-h"] {
            Console.out(overview)
            return words.isEmpty ? .usage : .ok
        }
        guard let (command, rest) = resolve(words) else {
            Console.error("custos: unknown command '\(words.prefix { !$0.hasPrefix("-") }.joined(separator: " "))' (see custos help)")
            return .usage
        }
        do {
            let parsed = try ArgumentParser.parse(rest, spec: command.spec)
            if parsed.wantsHelp {
                Console.out(command.spec.help)
                return .ok
            }
            return try command.run(parsed)
        } catch let error as UsageError {
            return usage(error.message, command)
        } catch let error as RuntimeError where error.kind == .configuration {
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
        + IDVCommands.all + AdminIDVCommands.all + [BenchLoginCommand.command, BenchIDVCommand.command]
        + [VersionCommand.command, HelpCommand.command] + FaceCommands.all

    static var overview: String {
        var lines = ["usage: custos COMMAND [options]", "", "commands:"]
        let width = allCommands.map(\.spec.path.count).max() ?? 0
        for command in allCommands {
            lines.append("  " + command.spec.path + String(repeating: " ", count: width - command.spec.path.count + 2) + command.spec.summary)
        }
        lines.append("")
        lines.append("Run 'custos COMMAND --help' for a command's options.")
        return lines.joined(separator: "\n")
    }
}
