import Foundation

/// What a bound device signs to answer an action of level 3: the notification's content as the
/// user saw it, so the signature approves exactly that transaction (dynamic linking). The app
/// builds it from the notification it showed; the server from what it stored; a difference in
/// any field (another amount, another payee) fails the signature.
public enum StepUpContent {
    private struct Signed: Encodable {
        let notificationUUID: String
        let action: String
        let subject: String
        let message: String
        let authorizationDetails: TransactionDetails?
        let number: Int?

        enum CodingKeys: String, CodingKey {
            case action, subject, message, number
            case notificationUUID = "notification_uuid"
            case authorizationDetails = "authorization_details"
        }
    }

    /// Canonical JSON (sorted keys, no whitespace, absent fields left out).
    public static func bytes(notificationUUID: String, action: String, subject: String, message: String,
                             details: TransactionDetails?, number: Int?) -> Data {
        canonical(Signed(notificationUUID: notificationUUID, action: action, subject: subject, message: message,
                         authorizationDetails: details, number: number))
    }

    /// The transaction details in canonical JSON: what `details_sha256` hashes.
    public static func detailsBytes(_ details: TransactionDetails) -> Data { canonical(details) }

    private static func canonical(_ value: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Strings, numbers and optionals only: encoding cannot fail.
        return (try? encoder.encode(value)) ?? Data()
    }
}

/// A webhook delivery's state, as the relying party reads it.
public struct WebhookDeliveryInfo: Codable, Equatable, Sendable {
    /// The idempotency id: a receiver that saw it already ignores the repeat.
    public var deliveryID: String
    /// `pending` (to be sent or retried), `delivered`, `failed` (retries exhausted).
    public var state: String
    public var attempts: Int
    public var lastStatus: Int?
    public var lastError: String?
    public var nextAttemptAt: Date?
    public var deliveredAt: Date?

    enum CodingKeys: String, CodingKey {
        case state, attempts
        case deliveryID = "delivery_id"
        case lastStatus = "last_status"
        case lastError = "last_error"
        case nextAttemptAt = "next_attempt_at"
        case deliveredAt = "delivered_at"
    }

    public init(deliveryID: String, state: String, attempts: Int, lastStatus: Int?, lastError: String?, nextAttemptAt: Date?,
                deliveredAt: Date?) {
        self.deliveryID = deliveryID
        self.state = state
        self.attempts = attempts
        self.lastStatus = lastStatus
        self.lastError = lastError
        self.nextAttemptAt = nextAttemptAt
        self.deliveredAt = deliveredAt
    }
}

/// A notification's outcome for the relying party (`GET /v1/notifications/{uuid}`, and the body
/// of its webhook): readable by API key, and signed so that it can be trusted offline.
public struct NotificationResult: Codable, Equatable, Sendable {
    public var notificationUUID: String
    public var userID: String
    public var status: NotificationStatus
    public var action: String?
    public var authLevel: AuthLevel?
    /// How the user proved it (RFC 8176: `pwd`, `hwk`, `face`, `user`).
    public var amr: [String]?
    public var answeredAt: Date?
    public var expiresAt: Date
    /// SHA-256 (base64url) of the transaction details in canonical JSON (`StepUpContent`).
    public var detailsSHA256: String?
    /// A compact JWS (ES256, `kid` in `/.well-known/jwks.json`) over `StepUpResultClaims`, once
    /// the notification reached a final state.
    public var signedResult: String?
    /// The webhook's delivery, when the notification has a callback.
    public var delivery: WebhookDeliveryInfo?

    enum CodingKeys: String, CodingKey {
        case status, action, amr, delivery
        case notificationUUID = "notification_uuid"
        case userID = "user_id"
        case authLevel = "auth_level"
        case answeredAt = "answered_at"
        case expiresAt = "expires_at"
        case detailsSHA256 = "details_sha256"
        case signedResult = "signed_result"
    }

    public init(notificationUUID: String, userID: String, status: NotificationStatus, action: String?, authLevel: AuthLevel?,
                amr: [String]?, answeredAt: Date?, expiresAt: Date, detailsSHA256: String?, signedResult: String?,
                delivery: WebhookDeliveryInfo?) {
        self.notificationUUID = notificationUUID
        self.userID = userID
        self.status = status
        self.action = action
        self.authLevel = authLevel
        self.amr = amr
        self.answeredAt = answeredAt
        self.expiresAt = expiresAt
        self.detailsSHA256 = detailsSHA256
        self.signedResult = signedResult
        self.delivery = delivery
    }
}

/// The claims of a step-up result's JWS (`typ` `custos-step-up+jwt`).
public struct StepUpResultClaims: Codable, Equatable, Sendable {
    public var iss: String
    /// The user.
    public var sub: String
    /// The id of the API key that sent the notification: a result is not taken for another's.
    public var aud: String
    public var iat: Int
    /// Until when the signed result may be taken as fresh (`iat` plus a day).
    public var exp: Int
    /// Unique per result: a relying party that keeps the ids refuses a replayed one.
    public var jti: String
    public var notificationUUID: String
    public var status: NotificationStatus
    public var action: String?
    public var authLevel: AuthLevel?
    public var amr: [String]?
    public var answeredAt: Int?
    public var detailsSHA256: String?
    /// With number matching: whether the user picked the relying party's number.
    public var numberMatched: Bool?

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, iat, exp, jti, status, action, amr
        case notificationUUID = "notification_uuid"
        case authLevel = "auth_level"
        case answeredAt = "answered_at"
        case detailsSHA256 = "details_sha256"
        case numberMatched = "number_matched"
    }

    public init(iss: String, sub: String, aud: String, iat: Int, exp: Int, jti: String, notificationUUID: String, status: NotificationStatus,
                action: String?, authLevel: AuthLevel?, amr: [String]?, answeredAt: Int?, detailsSHA256: String?, numberMatched: Bool?) {
        self.iss = iss
        self.sub = sub
        self.aud = aud
        self.iat = iat
        self.exp = exp
        self.jti = jti
        self.notificationUUID = notificationUUID
        self.status = status
        self.action = action
        self.authLevel = authLevel
        self.amr = amr
        self.answeredAt = answeredAt
        self.detailsSHA256 = detailsSHA256
        self.numberMatched = numberMatched
    }
}

/// The body of a webhook: one final state of one notification.
public struct WebhookEvent: Codable, Equatable, Sendable {
    /// The idempotency id (also in the `X-Custos-Delivery` header).
    public var deliveryID: String
    /// `notification.answered`, `notification.expired` or `notification.failed`.
    public var event: String
    public var result: NotificationResult

    enum CodingKeys: String, CodingKey {
        case event, result
        case deliveryID = "delivery_id"
    }

    public init(deliveryID: String, event: String, result: NotificationResult) {
        self.deliveryID = deliveryID
        self.event = event
        self.result = result
    }
}

/// `GET /v1/webhooks/secret` (relying party): the key that signs this API key's webhooks
/// (`X-Custos-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`).
public struct WebhookSecretInfo: Codable, Equatable, Sendable {
    public var keyID: String
    public var secret: String

    enum CodingKeys: String, CodingKey {
        case secret
        case keyID = "key_id"
    }

    public init(keyID: String, secret: String) {
        self.keyID = keyID
        self.secret = secret
    }
}
