import CustosAPI
import Foundation

/// The answer to an activation, login or password change, in the contract's status terms.
public struct AuthenticationOutcome: Equatable, Sendable {
    /// The contract's: `.success`, `.passwordExpired`, `.attemptsExhausted` or `.credentialsRejected`.
    public typealias Status = StatusCode

    public var status: Status
    public var userID: String
    public var attemptsLeft: Int
    public var device: Device?
    public var session: Session?
    /// The bearer token of `session`, shown once.
    public var sessionToken: String?
    /// With `.passwordExpired`: a single-use token that allows only a password change.
    public var passwordChangeToken: String?
    /// With `.attemptsExhausted` for a known user: when the lock ends. Only answers to the
    /// user's own session carry it (a login's answer must read the same for an unknown user).
    public var lockedUntil: Date?

    public init(status: Status, userID: String, attemptsLeft: Int, device: Device? = nil, session: Session? = nil,
                sessionToken: String? = nil, passwordChangeToken: String? = nil) {
        self.status = status
        self.userID = userID
        self.attemptsLeft = attemptsLeft
        self.device = device
        self.session = session
        self.sessionToken = sessionToken
        self.passwordChangeToken = passwordChangeToken
    }

    public var message: String {
        switch status {
        case .success: "Success."
        case .passwordExpired: "The password has expired; change it to continue."
        case .attemptsExhausted: "Attempts exhausted; the user is locked for a while."
        case .credentialsRejected: "The credentials were not accepted."
        default: "Status \(status)."
        }
    }
}
