/// Status and error codes of the wire contract, kept exactly as the REL-ID / BindID
/// tutorials define them (see DESIGN.md §2).
public enum StatusCode {
    /// Success, and "template exists" for the template status check.
    public static let success = 100
    /// Clients also accept 0 as success.
    public static let successAlternate = 0
    /// No biometric template for the user.
    public static let noTemplate = 600
    /// The password has expired and must be changed before anything else.
    public static let passwordExpired = 110
    /// Attempts exhausted; the user is locked.
    public static let attemptsExhausted = 153
    /// The user cancelled the selfie (the result event still fires).
    public static let userCancelledSelfie = 240
    /// The credentials (password, device signature) were not accepted; `attempts_left` says
    /// how many tries remain. Also the answer for an unknown or disabled user.
    public static let credentialsRejected = 401
    /// Local device authentication was cancelled.
    public static let localAuthenticationCancelled = 131

    /// Whether a `status_code` means success to a client.
    public static func isSuccess(_ code: Int) -> Bool { code == success || code == successAlternate }
}
