import CustosAPI
import Foundation

/// A relying party's request that a user approve something (seed 002): actions with the proof
/// each demands, the transaction details every signature covers, optional number matching.
public struct StepUpNotification: Equatable, Sendable {
    public var id: String
    public var userID: String
    /// The API key that created it (whose webhook secret signs its callback).
    public var apiKeyID: String
    public var subject: String
    public var message: String
    public var actions: [NotificationAction]
    public var details: TransactionDetails?
    /// With number matching: the number the relying party shows, which the user types.
    public var number: Int?
    public var callbackURL: String?
    public var status: NotificationStatus
    public var createdAt: Date
    public var expiresAt: Date
    public var chosenAction: String?
    public var achievedLevel: AuthLevel?
    public var answeredAt: Date?
    /// Level 4: the workflow 9 transaction started for the answer.
    public var stepUpTransactionID: String?
    /// The JWS over the final state.
    public var signedResult: String?
    /// A CIBA request in ping mode: whom to ping when the notification is final.
    public var ping: CIBAPing?
    /// The device whose session answered it.
    public var answeredBy: String?

    public init(id: String, userID: String, apiKeyID: String, subject: String, message: String, actions: [NotificationAction],
                details: TransactionDetails?, number: Int?, callbackURL: String?, status: NotificationStatus,
                createdAt: Date, expiresAt: Date, chosenAction: String? = nil, achievedLevel: AuthLevel? = nil, answeredAt: Date? = nil,
                stepUpTransactionID: String? = nil, signedResult: String? = nil, ping: CIBAPing? = nil, answeredBy: String? = nil) {
        self.id = id
        self.userID = userID
        self.apiKeyID = apiKeyID
        self.subject = subject
        self.message = message
        self.actions = actions
        self.details = details
        self.number = number
        self.callbackURL = callbackURL
        self.status = status
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.chosenAction = chosenAction
        self.achievedLevel = achievedLevel
        self.answeredAt = answeredAt
        self.stepUpTransactionID = stepUpTransactionID
        self.signedResult = signedResult
        self.ping = ping
        self.answeredBy = answeredBy
    }

    public func action(named name: String) -> NotificationAction? { actions.first { $0.action == name } }

    /// What a bound device signs to answer `action` (level 3).
    public func signingContent(action: String) -> Data {
        StepUpContent.bytes(notificationUUID: id, action: action, subject: subject, message: message, details: details, number: number)
    }
}

/// The ping of a CIBA client (ping mode): its notification endpoint, the bearer token it gave,
/// and the request the ping names.
public struct CIBAPing: Codable, Equatable, Sendable {
    public var endpoint: String
    public var clientNotificationToken: String
    public var authReqID: String

    enum CodingKeys: String, CodingKey {
        case endpoint
        case clientNotificationToken = "client_notification_token"
        case authReqID = "auth_req_id"
    }

    public init(endpoint: String, clientNotificationToken: String, authReqID: String) {
        self.endpoint = endpoint
        self.clientNotificationToken = clientNotificationToken
        self.authReqID = authReqID
    }
}

/// One webhook to deliver: written with the state change it reports, in the same transaction,
/// then claimed by one node at a time (a lease) and retried with backoff until it is delivered
/// or the retries run out. A notification's result or CIBA ping (`notificationID`), or a
/// Security Event Token pushed to a relying party's stream (`streamID`, RFC 8935).
public struct WebhookDelivery: Equatable, Sendable {
    public enum State: String, Sendable { case pending, delivered, failed }

    /// The idempotency id.
    public var id: String
    public var notificationID: String?
    /// The Shared Signals stream a Security Event Token goes to.
    public var streamID: String?
    public var apiKeyID: String
    public var url: String
    /// What is POSTed, and what the signature covers.
    public var body: Data
    /// `application/json`, or `application/secevent+jwt` for a Security Event Token.
    public var contentType: String
    /// The `Authorization` header of a CIBA ping (`Bearer <client_notification_token>`).
    public var authorization: String?
    public var state: State
    public var attempts: Int
    public var nextAttemptAt: Date
    public var leaseOwner: String?
    public var leaseUntil: Date?
    public var lastStatus: Int?
    public var lastError: String?
    public var createdAt: Date
    public var deliveredAt: Date?

    public static let json = "application/json"
    public static let securityEvent = "application/secevent+jwt"

    public init(id: String, notificationID: String?, streamID: String? = nil, apiKeyID: String, url: String, body: Data,
                contentType: String = WebhookDelivery.json, authorization: String? = nil, state: State = .pending, attempts: Int = 0,
                nextAttemptAt: Date, leaseOwner: String? = nil, leaseUntil: Date? = nil, lastStatus: Int? = nil, lastError: String? = nil,
                createdAt: Date, deliveredAt: Date? = nil) {
        self.id = id
        self.notificationID = notificationID
        self.streamID = streamID
        self.contentType = contentType
        self.apiKeyID = apiKeyID
        self.url = url
        self.body = body
        self.authorization = authorization
        self.state = state
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.leaseOwner = leaseOwner
        self.leaseUntil = leaseUntil
        self.lastStatus = lastStatus
        self.lastError = lastError
        self.createdAt = createdAt
        self.deliveredAt = deliveredAt
    }
}
