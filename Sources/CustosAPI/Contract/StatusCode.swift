/// `status_code`: status codes of the wire contract, kept exactly as the REL-ID / BindID
/// tutorials define them; `openapi.yaml` gives each answer's `status_code` values and what
/// they mean.
public struct StatusCode: OpenCode, ExpressibleByIntegerLiteral {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Success, and "template exists" for the template status check.
    public static let success: StatusCode = 100
    /// Clients also accept 0 as success.
    public static let successAlternate: StatusCode = 0
    /// No biometric template for the user.
    public static let noTemplate: StatusCode = 600
    /// The password has expired and must be changed before anything else.
    public static let passwordExpired: StatusCode = 110
    /// Attempts exhausted; the user is locked.
    public static let attemptsExhausted: StatusCode = 153
    /// The user cancelled the selfie (the result event still fires).
    public static let userCancelledSelfie: StatusCode = 240
    /// The credentials (password, device signature) were not accepted; `attempts_left` says
    /// how many tries remain. Also the answer for an unknown or disabled user.
    public static let credentialsRejected: StatusCode = 401
    /// Local device authentication was cancelled.
    public static let localAuthenticationCancelled: StatusCode = 131
    /// Custos's own: a notification action waits for the step-up its level demands (the
    /// answer's `step_up` says which); answer the action again with the proof.
    public static let stepUpRequired: StatusCode = 102

    /// Whether this code means success to a client.
    public var isSuccess: Bool { self == .success || self == .successAlternate }
}
