/// A command that ran and failed for a reason other than its command line (a server that
/// answered unexpectedly, a benchmark that could not proceed): printed as one line, exit 1.
/// Command-line mistakes are `UsageError`s (exit 2).
struct CommandFailure: Error, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}
