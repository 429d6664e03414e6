import Foundation

/// What the caller did wrong, in terms the HTTP layer maps to a status (see `kind`) and a
/// stable wire `code`. Messages are for people and never carry secrets.
public enum IdentityError: DomainError, Equatable {
    case invalidInput(field: String, reason: String)
    case passwordPolicy(String)
    case invalidDeviceKey(String)
    case userExists
    case userNotFound
    case deviceNotFound
    case sessionNotFound
    case apiKeyNotFound
    case deviceKeyInUse
    case invalidActivationCode
    case activationLocked
    case invalidNonce
    case invalidSession
    case invalidAPIKey
    case insufficientScope
    case userNotActive
    /// Activation is for a user's first device; an active user binds more with a registration code.
    case userAlreadyActive
    case invalidRegistrationCode
    /// A device approval request whose proof (the password, or a registration code) does not
    /// prove the user: nothing reached the user. The same for a user id that does not exist.
    case approvalProofRejected
    /// The server binds new devices by registration code or approval only.
    case passwordRegistrationOff
    /// Too many wrong passwords at password registration for this user: a new device needs a
    /// registration code or the approval of a bound device.
    case passwordRegistrationClosed
    /// The session's device was bound by the password alone and does not answer for a bound
    /// device until a registration code or an approval confirms it.
    case deviceNotConfirmed
    /// The session's device is on probation until then (bound or confirmed without another
    /// bound device's approval): what could take the account over waits.
    case deviceOnProbation(until: Date)
    /// A device approval request that is still waiting for the user's answer.
    case approvalPending
    /// The user denied the device approval request, or it failed, expired or was used.
    case approvalDenied(String)
    /// Too many failed device proofs from this client; try again after this many seconds.
    case throttled(retryAfter: Int)
    /// Every attempt the user has left is held by other tries of this user being judged right
    /// now, and none came free in time; ask again shortly (the user is not locked).
    case attemptsInFlight

    /// When to ask again: after the throttle's seconds, shortly for held attempts, every two
    /// seconds for a pending approval (as a device authorization grant's polling interval).
    public var retryAfterSeconds: Int? {
        switch self {
        case .throttled(let seconds): seconds
        case .attemptsInFlight: 1
        case .approvalPending: 2
        default: nil
        }
    }

    public var kind: ErrorKind {
        switch self {
        case .invalidInput, .passwordPolicy, .invalidDeviceKey: .invalidInput
        case .userExists, .deviceKeyInUse, .userNotActive, .userAlreadyActive: .conflict
        case .userNotFound, .deviceNotFound, .sessionNotFound, .apiKeyNotFound: .notFound
        case .invalidActivationCode, .invalidNonce, .invalidSession, .invalidAPIKey: .unauthenticated
        case .invalidRegistrationCode, .approvalProofRejected: .unauthenticated
        case .insufficientScope, .passwordRegistrationOff, .passwordRegistrationClosed, .deviceNotConfirmed, .approvalDenied,
             .deviceOnProbation: .forbidden
        case .approvalPending: .pending
        case .activationLocked: .locked
        case .throttled, .attemptsInFlight: .throttled
        }
    }

    public var code: String {
        switch self {
        case .invalidInput: "invalid_field"
        case .passwordPolicy: "password_policy"
        case .invalidDeviceKey: "invalid_device_key"
        case .userExists: "user_exists"
        case .userNotFound: "user_not_found"
        case .deviceNotFound: "device_not_found"
        case .sessionNotFound: "session_not_found"
        case .apiKeyNotFound: "api_key_not_found"
        case .deviceKeyInUse: "device_key_in_use"
        case .invalidActivationCode: "invalid_activation_code"
        case .activationLocked: "activation_locked"
        case .invalidNonce: "invalid_nonce"
        case .invalidSession: "invalid_session"
        case .invalidAPIKey: "invalid_api_key"
        case .insufficientScope: "insufficient_scope"
        case .userNotActive: "user_not_active"
        case .userAlreadyActive: "user_active"
        case .invalidRegistrationCode: "invalid_registration_code"
        case .approvalProofRejected: "approval_proof_rejected"
        case .passwordRegistrationOff: "password_registration_off"
        case .passwordRegistrationClosed: "password_registration_closed"
        case .deviceNotConfirmed: "device_not_confirmed"
        case .deviceOnProbation: "device_on_probation"
        case .approvalPending: "approval_pending"
        case .approvalDenied: "approval_denied"
        case .throttled: "too_many_attempts"
        case .attemptsInFlight: "attempts_in_flight"
        }
    }

    public var message: String {
        switch self {
        case .invalidInput(let field, let reason): "Field '\(field)' \(reason)."
        case .passwordPolicy(let reason): "The new password is not allowed: \(reason)."
        case .invalidDeviceKey(let reason): "The device public key is not usable: \(reason)."
        case .userExists: "A user with this id already exists; one still waiting for activation gets a new code from POST /v1/users/{id}/activation-code."
        case .userNotFound: "No such user."
        case .deviceNotFound: "No such device."
        case .sessionNotFound: "No such session."
        case .apiKeyNotFound: "No such API key."
        case .deviceKeyInUse: "This device key is already bound."
        case .invalidActivationCode: "The activation code is wrong, used or expired."
        case .activationLocked: "Too many wrong activation codes; ask for a new code."
        case .invalidNonce: "The login nonce is unknown, used or expired; ask for a new one."
        case .invalidSession: "The session is missing, expired or revoked; log in again."
        case .invalidAPIKey: "The API key is missing, unknown or revoked."
        case .insufficientScope: "This API key's scope does not allow this operation."
        case .userNotActive: "The user is not active."
        case .userAlreadyActive: "The user is already activated: bind another device with a registration code, or reset the user to start over."
        case .invalidRegistrationCode: "The registration code is wrong, used, expired or another user's."
        case .approvalProofRejected: "The user id and the password (or registration code) do not match: no approval request was sent."
        case .passwordRegistrationOff: "This server binds new devices with a registration code or the approval of a bound device, not the password alone."
        case .passwordRegistrationClosed: "Too many wrong passwords: bind this device with a registration code or the approval of a bound device."
        case .deviceOnProbation(let until):
            "This device was bound without the approval of another of your devices and is on probation until "
                + "\(ISO8601DateFormatter().string(from: until)): it cannot change the password, unbind or approve devices, "
                + "end other sessions, change the face template or add a passkey until then. Do it from a device bound before."
        case .deviceNotConfirmed: "This device was bound with the password alone: confirm it first, with a registration code sent with its key or a server face match from it."
        case .approvalPending: "The request waits for the user's answer on a bound device; ask again shortly."
        case .approvalDenied(let why): "The device was not approved: \(why)."
        case .throttled(let seconds): "Too many failed device proofs from this client; try again in \(seconds) s."
        case .attemptsInFlight: "Other tries of this user are being judged right now; try again in a second."
        }
    }
}
