import CustosAPI
import CustosSDK
import Foundation

/// Options and helpers shared by the commands that talk to a server.
enum ClientOptions {
    static let server = Option<URL?>(optional: "server", "URL", help: "server base URL [CUSTOS_SERVER] (default \(defaultServer))",
                                     expected: "an http(s) URL", convert: httpURL)
    /// On a command run in a profile's session the server is the profile's: one named here
    /// must be the same (see `Profile.open`).
    static let profileServer = Option<URL?>(optional: "server", "URL",
                                            help: "must be the server the profile was activated against, if given [CUSTOS_SERVER]",
                                            expected: "an http(s) URL", convert: httpURL)
    static let apiKey = Option<String?>.text("api-key", "KEY", help: "API key [CUSTOS_API_KEY]")
    static let json = Flag("json", help: "print the answer as JSON")
    static let profile = Option<String?>.text("profile", "DIR", help: "profile directory: device key and session [CUSTOS_PROFILE] (default ~/.custos/profile)")
    static let passwordStdin = Flag("password-stdin", help: "read the password from standard input (first line)")

    static let defaultServer = "http://127.0.0.1:8080"

    static func httpURL(_ text: String) -> URL? {
        guard let url = URL(string: text), let scheme = url.scheme, ["http", "https"].contains(scheme.lowercased()), url.host != nil else {
            return nil
        }
        return url
    }

    /// `--server`, else `CUSTOS_SERVER`; nil when neither is given.
    static func givenServer(_ arguments: ParsedArguments) throws -> URL? {
        if let url = arguments[server] { return url }
        guard let text = ProcessInfo.processInfo.environment["CUSTOS_SERVER"] else { return nil }
        guard let url = httpURL(text) else { throw UsageError("CUSTOS_SERVER must be an http(s) URL, got '\(text)'") }
        return url
    }

    static func serverURL(_ arguments: ParsedArguments) throws -> URL {
        try givenServer(arguments) ?? URL(string: defaultServer)!
    }

    static func adminClient(_ arguments: ParsedArguments) throws -> CustosAdminClient {
        guard let key = arguments[apiKey] ?? ProcessInfo.processInfo.environment["CUSTOS_API_KEY"], !key.isEmpty else {
            throw UsageError("an API key is required: --api-key KEY or CUSTOS_API_KEY (create one with 'custos admin apikey create')")
        }
        return try CustosAdminClient(serverURL: serverURL(arguments), apiKey: key)
    }

    /// Prints `value` as JSON (`--json`) or as the given human lines.
    static func output<T: Encodable>(_ arguments: ParsedArguments, _ value: T, human: () -> [String]) throws {
        if arguments[json] {
            let encoder = WireJSON.encoder()
            encoder.outputFormatting.insert(.prettyPrinted)
            Console.out(String(decoding: try encoder.encode(value), as: UTF8.self))
        } else {
            human().forEach(Console.out)
        }
    }
}

/// Reads a password: the first line of standard input with `--password-stdin`, else a
/// prompt without echo on a terminal.
enum PasswordInput {
    static func read(_ arguments: ParsedArguments, prompt: String) throws -> String {
        if arguments[ClientOptions.passwordStdin] {
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
        if !arguments[ClientOptions.passwordStdin] { try confirm(password) }
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
