import Foundation

/// The Shared Signals transmitter (OpenID SSF 1.0): each relying party's API key manages one
/// stream (its push endpoint and the events it wants), and every event about a user becomes a
/// Security Event Token (RFC 8417: `typ` `secevent+jwt`, signed by the key ring, `aud` the
/// stream's key) written to the webhook outbox in the transaction of the change it reports,
/// then pushed (RFC 8935, `application/secevent+jwt`) with the outbox's retries.
///
/// An event about a user goes to the stream of the key that created the user and to the
/// streams of admin keys: one relying party hears nothing of another's users.
public final class SecurityEventTransmitter: Sendable {
    public typealias Storage = SecurityEventStreamStore & WebhookOutboxStore & IdentityStore & AtomicStore

    /// The delivery method this transmitter supports (push, RFC 8935).
    public static let pushDelivery = "urn:ietf:rfc:8935"
    /// The SET's `typ` (RFC 8417 §2.3).
    public static let tokenType = "secevent+jwt"

    let store: any Storage
    let signer: any TokenSigner
    let random: any RandomSource
    let clock: any Clock
    let callbacks: any CallbackURLValidator
    public let issuer: String
    /// Rung when an event is in the outbox (the webhook worker listens).
    public let outboxBell: OutboxBell

    public init(store: any Storage, signer: any TokenSigner, random: any RandomSource, clock: any Clock, callbacks: any CallbackURLValidator,
                issuer: String, outboxBell: OutboxBell = OutboxBell()) {
        self.store = store
        self.signer = signer
        self.random = random
        self.clock = clock
        self.callbacks = callbacks
        self.issuer = issuer
        self.outboxBell = outboxBell
    }

    // MARK: Events

    /// Writes `event` for every stream that wants it; call it inside the transaction of the
    /// change it reports, so that the event and the change are stored together or not at all.
    public func emit(_ event: SecurityEvent, now: Date) throws {
        let createdBy = try store.user(id: event.userID)?.createdBy
        let streams = try store.streams(forUserCreatedBy: createdBy).filter { $0.eventsDelivered.contains(event.type.rawValue) }
        for stream in streams { try enqueue(event, to: stream, now: now) }
        if !streams.isEmpty { outboxBell.ring() }
    }

    private func enqueue(_ event: SecurityEvent, to stream: SecurityEventStream, now: Date, extraClaims: [String: Any] = [:]) throws {
        let jti = random.hexID(bytes: 16)
        var body: [String: Any] = event.members
        body["event_timestamp"] = Int(now.timeIntervalSince1970)
        var claims: [String: Any] = [
            "iss": issuer, "jti": jti, "iat": Int(now.timeIntervalSince1970), "aud": stream.apiKeyID,
            "sub_id": ["format": "iss_sub", "iss": issuer, "sub": event.userID],
            "events": [event.type.rawValue: body],
        ]
        claims.merge(extraClaims) { _, new in new }
        let payload = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys, .withoutEscapingSlashes])
        let token = try signer.sign(payload: payload, type: Self.tokenType, now: now)
        try store.enqueueWebhook(WebhookDelivery(id: jti, notificationID: nil, streamID: stream.id, apiKeyID: stream.apiKeyID,
                                                 url: stream.endpointURL, body: Data(token.utf8), contentType: WebhookDelivery.securityEvent,
                                                 nextAttemptAt: now, createdAt: now))
    }

    // MARK: Streams

    /// Creates the key's stream (one per key): push to `endpointURL`, checked as webhook URLs
    /// are; `eventsRequested` defaults to every event this transmitter sends.
    public func createStream(apiKeyID: String, endpointURL: String, eventsRequested: [String]?, description: String?) throws -> SecurityEventStream {
        try callbacks.validate(endpointURL)
        let now = clock.now()
        let stream = SecurityEventStream(id: "ss_" + random.hexID(bytes: 12), apiKeyID: apiKeyID, endpointURL: endpointURL,
                                         eventsRequested: try Self.checkEvents(eventsRequested), description: try Self.checkDescription(description),
                                         createdAt: now, updatedAt: now)
        do {
            try store.createStream(stream)
        } catch StoreError.duplicate {
            throw SecurityEventError.exists
        }
        return stream
    }

    /// The key's stream; `id`, when given, must name it.
    public func stream(apiKeyID: String, id: String? = nil) throws -> SecurityEventStream {
        guard let stream = try store.stream(apiKeyID: apiKeyID), id == nil || id == stream.id else { throw SecurityEventError.notFound }
        return stream
    }

    /// Changes what is given (SSF 1.0 §8.1.1.3, PATCH).
    public func updateStream(apiKeyID: String, id: String, endpointURL: String?, eventsRequested: [String]?,
                             description: String?) throws -> SecurityEventStream {
        var stream = try stream(apiKeyID: apiKeyID, id: id)
        if let endpointURL {
            try callbacks.validate(endpointURL)
            stream.endpointURL = endpointURL
        }
        if let eventsRequested { stream.eventsRequested = try Self.checkEvents(eventsRequested) }
        if let description { stream.description = try Self.checkDescription(description) }
        stream.updatedAt = clock.now()
        guard try store.updateStream(stream) else { throw SecurityEventError.notFound }
        return stream
    }

    public func deleteStream(apiKeyID: String, id: String) throws {
        guard try store.deleteStream(id: try stream(apiKeyID: apiKeyID, id: id).id) else { throw SecurityEventError.notFound }
    }

    /// Sends a verification event (SSF 1.0 §8.1.4.2) to the key's stream, with the receiver's `state`.
    public func verify(apiKeyID: String, id: String, state: String?) throws {
        let stream = try stream(apiKeyID: apiKeyID, id: id)
        if let state, state.utf8.count > 256 { throw SecurityEventError.invalid("state", "must be at most 256 bytes") }
        let now = clock.now()
        var members: [String: String] = [:]
        if let state { members["state"] = state }
        // A verification event is about the stream, not a user: its subject names the stream.
        let event = SecurityEvent(type: .verification, userID: stream.id, members: members)
        try store.atomically {
            try enqueue(event, to: stream, now: now, extraClaims: ["sub_id": ["format": "opaque", "id": stream.id]])
        }
        outboxBell.ring()
    }

    static func checkEvents(_ requested: [String]?) throws -> [String] {
        let requested = requested ?? SecurityEventType.requestable.map(\.rawValue)
        guard requested.count <= 10, requested.allSatisfy({ $0.utf8.count <= 200 }) else {
            throw SecurityEventError.invalid("events_requested", "must hold at most 10 event type URIs")
        }
        return Array(Set(requested)).sorted()
    }

    static func checkDescription(_ description: String?) throws -> String? {
        guard let description else { return nil }
        guard description.count <= 200, !description.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw SecurityEventError.invalid("description", "must be at most 200 characters without control characters")
        }
        return description
    }
}
