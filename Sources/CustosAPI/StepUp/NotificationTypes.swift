import Foundation

/// One action a notification offers the user, and the proof it demands.
public struct NotificationAction: Codable, Equatable, Sendable {
    /// What the app shows on the button ("Approve").
    public var label: String
    /// What the relying party gets back ("approve").
    public var action: String
    public var authLevel: AuthLevel

    enum CodingKeys: String, CodingKey {
        case label, action
        case authLevel = "auth_level"
    }

    public init(label: String, action: String, authLevel: AuthLevel) {
        self.label = label
        self.action = action
        self.authLevel = authLevel
    }
}

/// What a notification asks the user to approve, shown to the user and covered by every
/// signature over the answer (dynamic linking). Amounts are decimal strings ("120.50"), so no
/// floating point ever changes them.
public struct TransactionDetails: Codable, Equatable, Sendable {
    /// What kind of transaction ("payment", "login", …).
    public var type: String
    public var amount: String?
    /// ISO 4217 code ("EUR").
    public var currency: String?
    public var payee: String?
    /// The relying party's own reference.
    public var reference: String?

    public init(type: String, amount: String? = nil, currency: String? = nil, payee: String? = nil, reference: String? = nil) {
        self.type = type
        self.amount = amount
        self.currency = currency
        self.payee = payee
        self.reference = reference
    }
}

/// `POST /v1/notifications` (relying party).
public struct CreateNotificationRequest: Codable, Equatable, Sendable {
    public var userID: String
    public var subject: String
    public var message: String
    public var actions: [NotificationAction]
    public var authorizationDetails: TransactionDetails?
    /// Seconds until the notification expires (default 300).
    public var expiresIn: Int?
    /// The answer must carry the number the relying party shows on its own screen.
    public var numberMatching: Bool?
    /// Where the signed result is POSTed when the notification reaches a final state.
    public var callbackURL: String?

    enum CodingKeys: String, CodingKey {
        case subject, message, actions
        case userID = "user_id"
        case authorizationDetails = "authorization_details"
        case expiresIn = "expires_in"
        case numberMatching = "number_matching"
        case callbackURL = "callback_url"
    }

    public init(userID: String, subject: String, message: String, actions: [NotificationAction],
                authorizationDetails: TransactionDetails? = nil, expiresIn: Int? = nil, numberMatching: Bool? = nil,
                callbackURL: String? = nil) {
        self.userID = userID
        self.subject = subject
        self.message = message
        self.actions = actions
        self.authorizationDetails = authorizationDetails
        self.expiresIn = expiresIn
        self.numberMatching = numberMatching
        self.callbackURL = callbackURL
    }
}

/// The answer to a notification's creation.
public struct CreatedNotification: Codable, Equatable, Sendable {
    public var notificationUUID: String
    public var expiresAt: Date
    /// With number matching: the two-digit number the relying party shows on its own screen.
    public var number: Int?

    enum CodingKeys: String, CodingKey {
        case number
        case notificationUUID = "notification_uuid"
        case expiresAt = "expires_at"
    }

    public init(notificationUUID: String, expiresAt: Date, number: Int?) {
        self.notificationUUID = notificationUUID
        self.expiresAt = expiresAt
        self.number = number
    }
}

/// Where a notification stands: `pending` until answered or expired; `answered` with the chosen
/// action; `expired` unanswered; `failed` when the wrong number was picked (a push the user did
/// not start is closed, not left for guessing).
public struct NotificationStatus: OpenCode, ExpressibleByStringLiteral {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let pending: NotificationStatus = "pending"
    public static let answered: NotificationStatus = "answered"
    public static let expired: NotificationStatus = "expired"
    public static let failed: NotificationStatus = "failed"
}

/// A notification as the user's app sees it.
public struct NotificationInfo: Codable, Equatable, Sendable {
    public var notificationUUID: String
    public var subject: String
    public var message: String
    public var actions: [NotificationAction]
    public var authorizationDetails: TransactionDetails?
    /// With number matching: the user types the two-digit number the relying party (or the new
    /// device asking to be bound) shows on its own screen; nothing here gives it away.
    public var numberMatching: Bool
    public var status: NotificationStatus
    public var createdAt: Date
    public var expiresAt: Date
    public var chosenAction: String?
    public var achievedLevel: AuthLevel?
    public var answeredAt: Date?

    enum CodingKeys: String, CodingKey {
        case subject, message, actions, status
        case notificationUUID = "notification_uuid"
        case authorizationDetails = "authorization_details"
        case numberMatching = "number_matching"
        case createdAt = "created_at"
        case expiresAt = "expires_at"
        case chosenAction = "chosen_action"
        case achievedLevel = "achieved_level"
        case answeredAt = "answered_at"
    }

    public init(notificationUUID: String, subject: String, message: String, actions: [NotificationAction],
                authorizationDetails: TransactionDetails?, numberMatching: Bool, status: NotificationStatus, createdAt: Date,
                expiresAt: Date, chosenAction: String? = nil, achievedLevel: AuthLevel? = nil, answeredAt: Date? = nil) {
        self.notificationUUID = notificationUUID
        self.subject = subject
        self.message = message
        self.actions = actions
        self.authorizationDetails = authorizationDetails
        self.numberMatching = numberMatching
        self.status = status
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.chosenAction = chosenAction
        self.achievedLevel = achievedLevel
        self.answeredAt = answeredAt
    }
}

/// The user's notifications (`GET /v1/notifications`: pending; `…/history`: the others).
public struct NotificationList: Codable, Equatable, Sendable {
    public var statusCode: StatusCode
    public var notifications: [NotificationInfo]

    enum CodingKeys: String, CodingKey {
        case notifications
        case statusCode = "status_code"
    }

    public init(statusCode: StatusCode = .success, notifications: [NotificationInfo]) {
        self.statusCode = statusCode
        self.notifications = notifications
    }
}

/// `POST /v1/notifications/{uuid}/actions`: the user's answer, with the proof its level demands
/// (none at first: the answer says which step-up to do).
public struct UpdateNotificationRequest: Codable, Equatable, Sendable {
    public var action: String
    /// With number matching: the number the user picked.
    public var number: Int?
    /// Level 1.
    public var password: String?
    /// Level 3: the bound device's ES256 signature (r‖s, base64url) over `StepUpContent`.
    public var signature: String?
    /// Level 4: the workflow 9 transaction the answer started, once its selfie MATCHED.
    public var idvTransactionID: String?
    /// Level 1: one of the user's passkeys, with user verification, over `step_up.passkey.challenge`.
    public var assertion: WebAuthnAssertionBody?

    enum CodingKeys: String, CodingKey {
        case action, number, password, signature, assertion
        case idvTransactionID = "idv_audit_transaction_id"
    }

    public init(action: String, number: Int? = nil, password: String? = nil, signature: String? = nil, idvTransactionID: String? = nil,
                assertion: WebAuthnAssertionBody? = nil) {
        self.action = action
        self.number = number
        self.password = password
        self.signature = signature
        self.idvTransactionID = idvTransactionID
        self.assertion = assertion
    }
}

/// Level 1 for a user with a passkey: what `navigator.credentials.get` needs to answer instead
/// of the password. The challenge is the SHA-256 of the notification's signing content for the
/// chosen action, so the assertion answers this action of this notification only.
public struct PasskeyStepUp: Codable, Equatable, Sendable {
    /// base64url of the 32 bytes.
    public var challenge: String
    public var rpID: String
    /// The user's passkeys (device ids: `pk_` and the credential id in base64url).
    public var credentialIDs: [String]
    /// Always `required`.
    public var userVerification: String

    enum CodingKeys: String, CodingKey {
        case challenge
        case rpID = "rp_id"
        case credentialIDs = "credential_ids"
        case userVerification = "user_verification"
    }

    public init(challenge: String, rpID: String, credentialIDs: [String], userVerification: String = "required") {
        self.challenge = challenge
        self.rpID = rpID
        self.credentialIDs = credentialIDs
        self.userVerification = userVerification
    }
}

/// The step-up an action waits for.
public struct StepUpChallenge: Codable, Equatable, Sendable {
    public var authLevel: AuthLevel
    /// Level 1: challenge mode 3.
    public var challengeMode: ChallengeMode?
    /// Level 4: workflow 9 and the transaction started for it (confirm, then upload the selfie).
    public var idvWorkflow: Workflow?
    public var idvAuditTransactionID: String?
    /// Level 1 from a bound device: the device key's signature over the notification, made
    /// after the device's local authentication (LDA), answers instead of the password.
    public var signatureAccepted: Bool?
    /// Level 1 for a user with a passkey: the passkey's assertion answers instead of the password.
    public var passkey: PasskeyStepUp?

    enum CodingKeys: String, CodingKey {
        case passkey
        case authLevel = "auth_level"
        case challengeMode = "challenge_mode"
        case idvWorkflow = "idv_workflow"
        case idvAuditTransactionID = "idv_audit_transaction_id"
        case signatureAccepted = "signature_accepted"
    }

    public init(authLevel: AuthLevel, challengeMode: ChallengeMode? = nil, idvWorkflow: Workflow? = nil, idvAuditTransactionID: String? = nil,
                signatureAccepted: Bool? = nil, passkey: PasskeyStepUp? = nil) {
        self.authLevel = authLevel
        self.challengeMode = challengeMode
        self.idvWorkflow = idvWorkflow
        self.idvAuditTransactionID = idvAuditTransactionID
        self.signatureAccepted = signatureAccepted
        self.passkey = passkey
    }
}

/// The answer to an action: 100 done; 102 a step-up is needed (`step_up`); 401 the proof was
/// wrong (`attempts_left`); 110 the password expired; 153 the attempts are exhausted (the user
/// is locked and the session ended).
public struct UpdateNotificationResult: Codable, Equatable, Sendable {
    public var statusCode: StatusCode
    public var statusMessage: String
    public var notificationUUID: String
    public var action: String
    public var attemptsLeft: Int?
    public var stepUp: StepUpChallenge?
    public var notification: NotificationInfo?
    /// With 153: when the user's lock ends (it lifts by itself then; an admin can lift it sooner).
    public var lockedUntil: Date?

    enum CodingKeys: String, CodingKey {
        case action, notification
        case statusCode = "status_code"
        case statusMessage = "status_message"
        case notificationUUID = "notification_uuid"
        case attemptsLeft = "attempts_left"
        case stepUp = "step_up"
        case lockedUntil = "locked_until"
    }

    public init(statusCode: StatusCode, statusMessage: String, notificationUUID: String, action: String, attemptsLeft: Int? = nil,
                stepUp: StepUpChallenge? = nil, notification: NotificationInfo? = nil, lockedUntil: Date? = nil) {
        self.lockedUntil = lockedUntil
        self.statusCode = statusCode
        self.statusMessage = statusMessage
        self.notificationUUID = notificationUUID
        self.action = action
        self.attemptsLeft = attemptsLeft
        self.stepUp = stepUp
        self.notification = notification
    }
}
