import Foundation

/// How events reach a receiver (SSF 1.0 §8.1.1): push (RFC 8935) to `endpoint_url`.
public struct StreamDelivery: Codable, Equatable, Sendable {
    public var method: String
    public var endpointURL: String?

    enum CodingKeys: String, CodingKey {
        case method
        case endpointURL = "endpoint_url"
    }

    public init(method: String = "urn:ietf:rfc:8935", endpointURL: String?) {
        self.method = method
        self.endpointURL = endpointURL
    }
}

/// A stream's configuration (SSF 1.0 §8.1.1), as the transmitter answers it.
public struct StreamConfiguration: Codable, Equatable, Sendable {
    public var streamID: String
    public var iss: String
    /// The API key the events are for (their `aud`).
    public var aud: String
    public var delivery: StreamDelivery
    public var eventsSupported: [String]
    public var eventsRequested: [String]
    public var eventsDelivered: [String]
    public var description: String?

    enum CodingKeys: String, CodingKey {
        case iss, aud, delivery, description
        case streamID = "stream_id"
        case eventsSupported = "events_supported"
        case eventsRequested = "events_requested"
        case eventsDelivered = "events_delivered"
    }

    public init(streamID: String, iss: String, aud: String, delivery: StreamDelivery, eventsSupported: [String], eventsRequested: [String],
                eventsDelivered: [String], description: String?) {
        self.streamID = streamID
        self.iss = iss
        self.aud = aud
        self.delivery = delivery
        self.eventsSupported = eventsSupported
        self.eventsRequested = eventsRequested
        self.eventsDelivered = eventsDelivered
        self.description = description
    }
}

/// A receiver creates its stream (POST) or changes it (PATCH, with `stream_id`).
public struct StreamConfigurationRequest: Codable, Equatable, Sendable {
    public var streamID: String?
    public var delivery: StreamDelivery?
    public var eventsRequested: [String]?
    public var description: String?

    enum CodingKeys: String, CodingKey {
        case delivery, description
        case streamID = "stream_id"
        case eventsRequested = "events_requested"
    }

    public init(streamID: String? = nil, delivery: StreamDelivery? = nil, eventsRequested: [String]? = nil, description: String? = nil) {
        self.streamID = streamID
        self.delivery = delivery
        self.eventsRequested = eventsRequested
        self.description = description
    }
}

/// A receiver asks for a verification event (SSF 1.0 §8.1.4.2).
public struct StreamVerificationRequest: Codable, Equatable, Sendable {
    public var streamID: String
    public var state: String?

    enum CodingKeys: String, CodingKey {
        case state
        case streamID = "stream_id"
    }

    public init(streamID: String, state: String? = nil) {
        self.streamID = streamID
        self.state = state
    }
}

/// How a receiver authorizes its stream requests (SSF 1.0 §7.1.1): `urn:ietf:rfc:6750`, a bearer (the API key).
public struct AuthorizationScheme: Codable, Equatable, Sendable {
    public var specURN: String

    enum CodingKeys: String, CodingKey {
        case specURN = "spec_urn"
    }

    public init(specURN: String) { self.specURN = specURN }
}

/// `/.well-known/ssf-configuration` (SSF 1.0 §7.1): the transmitter's metadata.
public struct TransmitterConfiguration: Codable, Equatable, Sendable {
    public var specVersion: String
    public var issuer: String
    public var jwksURI: String
    public var deliveryMethodsSupported: [String]
    public var configurationEndpoint: String
    public var verificationEndpoint: String
    public var authorizationSchemes: [AuthorizationScheme]
    public var defaultSubjects: String

    enum CodingKeys: String, CodingKey {
        case issuer
        case specVersion = "spec_version"
        case jwksURI = "jwks_uri"
        case deliveryMethodsSupported = "delivery_methods_supported"
        case configurationEndpoint = "configuration_endpoint"
        case verificationEndpoint = "verification_endpoint"
        case authorizationSchemes = "authorization_schemes"
        case defaultSubjects = "default_subjects"
    }

    public init(specVersion: String, issuer: String, jwksURI: String, deliveryMethodsSupported: [String], configurationEndpoint: String,
                verificationEndpoint: String, authorizationSchemes: [AuthorizationScheme], defaultSubjects: String) {
        self.specVersion = specVersion
        self.issuer = issuer
        self.jwksURI = jwksURI
        self.deliveryMethodsSupported = deliveryMethodsSupported
        self.configurationEndpoint = configurationEndpoint
        self.verificationEndpoint = verificationEndpoint
        self.authorizationSchemes = authorizationSchemes
        self.defaultSubjects = defaultSubjects
    }
}
