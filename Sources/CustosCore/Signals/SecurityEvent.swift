import Foundation

/// The OpenID Shared Signals events the server transmits (CAEP 1.0, SSF 1.0), as Security Event
/// Tokens (RFC 8417) pushed to each relying party's stream (RFC 8935).
public enum SecurityEventType: String, CaseIterable, Sendable {
    /// Every session (and OpenID grant) of the user, or of one device, ended: a device revoked, the
    /// user disabled, locked, reset or deleted, the password changed.
    case sessionRevoked = "https://schemas.openid.net/secevent/caep/event-type/session-revoked"
    /// A credential was created, revoked or updated: a device bound (who, how, from where) or
    /// unbound, the password changed.
    case credentialChange = "https://schemas.openid.net/secevent/caep/event-type/credential-change"
    /// The answer to a receiver's verification request (SSF 1.0 §8.1.4), with its `state`.
    case verification = "https://schemas.openid.net/secevent/ssf/event-type/verification"

    /// What a stream may ask for (verification events are sent whenever asked).
    public static let requestable: [SecurityEventType] = [.sessionRevoked, .credentialChange]
}

/// One event about a user: its type and its members (CAEP's `reason_admin`, `change_type`, …;
/// `event_timestamp` is added when it is sent).
public struct SecurityEvent: Sendable {
    public var type: SecurityEventType
    public var userID: String
    public var members: [String: String]

    public init(type: SecurityEventType, userID: String, members: [String: String]) {
        self.type = type
        self.userID = userID
        self.members = members
    }

    /// The user's sessions ended, for `reason` (in English, CAEP's `reason_admin`), on the
    /// initiative of `initiatingEntity` (`admin`, `user`, `policy` or `system`).
    public static func sessionRevoked(_ userID: String, reason: String, initiatingEntity: String, deviceID: String? = nil) -> SecurityEvent {
        var members = ["reason_admin": reason, "initiating_entity": initiatingEntity]
        if let deviceID { members["device_id"] = deviceID }
        return SecurityEvent(type: .sessionRevoked, userID: userID, members: members)
    }

    /// A credential changed: `credentialType` `password` or `app` (a bound device's key),
    /// `changeType` `create`, `revoke` or `update`.
    public static func credentialChange(_ userID: String, credentialType: String, changeType: String, initiatingEntity: String,
                                        extra: [String: String] = [:]) -> SecurityEvent {
        SecurityEvent(type: .credentialChange, userID: userID, members: [
            "credential_type": credentialType, "change_type": changeType, "initiating_entity": initiatingEntity,
        ].merging(extra) { first, _ in first })
    }
}

/// A relying party's stream: where its events are pushed, and which it asked for.
public struct SecurityEventStream: Equatable, Sendable {
    public var id: String
    /// The API key it belongs to (its events' `aud`).
    public var apiKeyID: String
    /// The receiver's push endpoint (RFC 8935), checked as webhook URLs are.
    public var endpointURL: String
    /// Event type URIs.
    public var eventsRequested: [String]
    public var description: String?
    public var createdAt: Date
    public var updatedAt: Date

    public init(id: String, apiKeyID: String, endpointURL: String, eventsRequested: [String], description: String?,
                createdAt: Date, updatedAt: Date) {
        self.id = id
        self.apiKeyID = apiKeyID
        self.endpointURL = endpointURL
        self.eventsRequested = eventsRequested
        self.description = description
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// What the stream receives: what it asked for that the transmitter sends.
    public var eventsDelivered: [String] {
        eventsRequested.filter { uri in SecurityEventType.requestable.contains { $0.rawValue == uri } }
    }
}

/// The streams.
public protocol SecurityEventStreamStore: Sendable {
    /// Throws `StoreError.duplicate` when the API key has a stream already.
    func createStream(_ stream: SecurityEventStream) throws
    func stream(apiKeyID: String) throws -> SecurityEventStream?
    /// False when there is no such stream.
    func updateStream(_ stream: SecurityEventStream) throws -> Bool
    func deleteStream(id: String) throws -> Bool
    /// The streams an event about a user created by `creatorKeyID` goes to: that key's and
    /// every live admin key's.
    func streams(forUserCreatedBy creatorKeyID: String?) throws -> [SecurityEventStream]
}

/// Why a stream request was refused.
public struct SecurityEventError: DomainError, Equatable {
    public let kind: ErrorKind
    public let code: String
    public let message: String

    public static func invalid(_ field: String, _ reason: String) -> SecurityEventError {
        SecurityEventError(kind: .malformed, code: "invalid_field", message: "\(field) \(reason)")
    }
    public static let notFound = SecurityEventError(kind: .notFound, code: "stream_not_found", message: "This API key has no such stream.")
    public static let exists = SecurityEventError(kind: .conflict, code: "stream_exists",
                                                  message: "This API key has a stream already: update or delete it.")
}
