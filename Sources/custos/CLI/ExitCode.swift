/// The exit statuses every `custos` command uses.
enum ExitCode: Int32 {
    /// Done.
    case ok = 0
    /// The command ran and failed (server unreachable, database error, …).
    case failure = 1
    /// The command line or configuration is wrong; a one-line reason was printed.
    case usage = 2
    /// A comparison answered "different" (`custos face compare`).
    case different = 3
    /// The server did not accept the credentials (status 401); attempts are left.
    case rejected = 4
    /// The password has expired (status 110): change it.
    case passwordExpired = 5
    /// Attempts exhausted (status 153): the user is locked.
    case locked = 6
    /// The user has no face template (status 600).
    case noTemplate = 7
    /// The selfie process was declined or cancelled (error 240).
    case cancelled = 8
    /// `signin --bound`: this device is not bound to a user (no fallback was tried).
    case unknownUser = 9
    /// Refused: a revoked device or a disabled or locked user (`signin`), a token that does
    /// not verify (`token verify`), a grant the server refused (`token exchange`).
    case refused = 10
    /// No answer in time (the local authentication of `signin --bound`).
    case timedOut = 11
}
