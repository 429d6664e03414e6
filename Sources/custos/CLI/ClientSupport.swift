import CustosAPI
import CustosSDK
import Foundation

/// Options and helpers shared by the commands that talk to a server.
enum ClientOptions {
    static let server = OptionSpec.value("server", "URL", "server base URL [CUSTOS_SERVER] (default http://127.0.0.1:8080)")
    static let apiKey = OptionSpec.value("api-key", "KEY", "API key [CUSTOS_API_KEY]")
    static let json = OptionSpec.flag("json", "print the answer as JSON")
    static let profile = OptionSpec.value("profile", "DIR", "profile directory: device key and session [CUSTOS_PROFILE] (default ~/.custos/profile)")
    static let passwordStdin = OptionSpec.flag("password-stdin", "read the password from standard input (first line)")

    static func serverURL(_ arguments: ParsedArguments) throws -> URL {
        let text = arguments.value("server") ?? ProcessInfo.processInfo.environment["CUSTOS_SERVER"] ?? "http://127.0.0.1:8080"
        guard let url = URL(string: text), let scheme = url.scheme, ["http", "https"].contains(scheme.lowercased()), url.host != nil else {
            throw UsageError("--server must be an http(s) URL, got '\(text)'")
        }
        return url
    }

    static func adminClient(_ arguments: ParsedArguments) throws -> CustosAdminClient {
        guard let key = arguments.value("api-key") ?? ProcessInfo.processInfo.environment["CUSTOS_API_KEY"], !key.isEmpty else {
            throw UsageError("an API key is required: --api-key KEY or CUSTOS_API_KEY (create one with 'custos admin apikey create')")
        }
        return try CustosAdminClient(serverURL: serverURL(arguments), apiKey: key)
    }

    /// Prints `value` as JSON (`--json`) or as the given human lines.
    static func output<T: Encodable>(_ arguments: ParsedArguments, _ value: T, human: () -> [String]) throws {
        if arguments.has("json") {
            let encoder = WireJSON.encoder()
            encoder.outputFormatting.insert(.prettyPrinted)
            Console.out(String(decoding: try encoder.encode(value), as: UTF8.self))
        } else {
            human().forEach(Console.out)
        }
    }
}

/// Runs async SDK work from a synchronous command. SDK errors propagate as they are; the
/// command line prints them as one line, `code: message`, and exits 1.
func callServer<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
    let box = LockedBox<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        do { box.set(.success(try await work())) } catch { box.set(.failure(error)) }
        done.signal()
    }
    done.wait()
    guard let result = box.get() else { throw CommandFailure("internal: no result") }
    return try result.get()
}

/// Reads a password: the first line of standard input with `--password-stdin`, else a
/// prompt without echo on a terminal.
enum PasswordInput {
    static func read(_ arguments: ParsedArguments, prompt: String) throws -> String {
        if arguments.has("password-stdin") {
            guard let line = readLine(strippingNewline: true), !line.isEmpty else {
                throw UsageError("--password-stdin: no password on standard input")
            }
            return line
        }
        guard isatty(STDIN_FILENO) == 1 else {
            throw UsageError("no terminal to ask for the password on; use --password-stdin")
        }
        return try promptWithoutEcho(prompt)
    }

    /// Reads further lines of standard input (for a second password after the first).
    static func nextLine(_ what: String) throws -> String {
        guard let line = readLine(strippingNewline: true), !line.isEmpty else {
            throw UsageError("--password-stdin: no \(what) on standard input")
        }
        return line
    }

    /// A new password from the terminal, typed twice: a typo would otherwise set a password
    /// nobody knows. From `--password-stdin`, read once.
    static func readNew(_ arguments: ParsedArguments) throws -> String {
        let password = try read(arguments, prompt: "New password: ")
        if !arguments.has("password-stdin") { try confirm(password) }
        return password
    }

    /// Asks for `password` again on the terminal; a mismatch is a usage error (exit 2).
    static func confirm(_ password: String) throws {
        guard try promptWithoutEcho("Repeat the new password: ") == password else {
            throw UsageError("the two new passwords differ; nothing was changed")
        }
    }

    static func promptWithoutEcho(_ prompt: String) throws -> String {
        FileHandle.standardError.write(Data(prompt.utf8))
        var original = termios()
        tcgetattr(STDIN_FILENO, &original)
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSANOW, &silent)
        defer {
            tcsetattr(STDIN_FILENO, TCSANOW, &original)
            FileHandle.standardError.write(Data("\n".utf8))
        }
        guard let line = readLine(strippingNewline: true), !line.isEmpty else { throw UsageError("no password given") }
        return line
    }
}
