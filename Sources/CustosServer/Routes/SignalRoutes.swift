import CustosAPI
import CustosCore
import CustosHTTP
import Foundation

/// OpenID Shared Signals (SSF 1.0): the transmitter's metadata, and the stream each relying
/// party's API key manages (`/ssf/streams`: POST creates, GET reads, PATCH changes, DELETE
/// removes; `/ssf/verify` asks for a verification event).
enum SignalRoutes {
    static func register(on routes: inout EndpointRouter, _ groups: AccessGroups, signals: SecurityEventTransmitter?) {
        @Sendable func transmitter() throws -> SecurityEventTransmitter {
            guard let signals else { throw HTTPError(status: 404, code: "not_found", message: "This server transmits no security events.") }
            return signals
        }
        routes.on(Endpoints.ssfConfiguration, groups.anyone) { _, _ in
            let issuer = try transmitter().issuer
            return TransmitterConfiguration(
                specVersion: "1_0", issuer: issuer, jwksURI: issuer + Endpoints.jwks.path,
                deliveryMethodsSupported: [SecurityEventTransmitter.pushDelivery], configurationEndpoint: issuer + Endpoints.createStream.path,
                verificationEndpoint: issuer + Endpoints.verifyStream.path, authorizationSchemes: [AuthorizationScheme(specURN: "urn:ietf:rfc:6750")],
                defaultSubjects: "ALL")
        }
        routes.on(Endpoints.createStream, groups.rp) { context, body in
            let signals = try transmitter()
            let stream = try signals.createStream(apiKeyID: context.caller.id, endpointURL: try pushEndpoint(body.delivery),
                                                  eventsRequested: body.eventsRequested, description: body.description)
            return configuration(stream, issuer: signals.issuer)
        }
        routes.respond(Endpoints.readStreams, groups.rp) { context, _ in
            let signals = try transmitter()
            // With `stream_id` the stream itself; without, the key's streams (one at most).
            if let id = context.request.query["stream_id"] {
                let stream = try signals.stream(apiKeyID: context.caller.id, id: id)
                return .json(raw: try WireJSON.encoder().encode(configuration(stream, issuer: signals.issuer)))
            }
            let streams = (try? signals.stream(apiKeyID: context.caller.id)).map { [configuration($0, issuer: signals.issuer)] } ?? []
            return .json(raw: try WireJSON.encoder().encode(streams))
        }
        routes.on(Endpoints.updateStream, groups.rp) { context, body in
            let signals = try transmitter()
            guard let id = body.streamID else { throw SecurityEventError.invalid("stream_id", "is required") }
            let stream = try signals.updateStream(apiKeyID: context.caller.id, id: id,
                                                  endpointURL: try body.delivery.map { try pushEndpoint($0) },
                                                  eventsRequested: body.eventsRequested, description: body.description)
            return configuration(stream, issuer: signals.issuer)
        }
        routes.on(Endpoints.deleteStream, groups.rp) { context, _ in
            guard let id = context.request.query["stream_id"] else { throw SecurityEventError.invalid("stream_id", "is required") }
            try transmitter().deleteStream(apiKeyID: context.caller.id, id: id)
            return NoContent()
        }
        routes.on(Endpoints.verifyStream, groups.rp) { context, body in
            try transmitter().verify(apiKeyID: context.caller.id, id: body.streamID, state: body.state)
            return NoContent()
        }
    }

    private static func pushEndpoint(_ delivery: StreamDelivery?) throws -> String {
        guard let delivery, delivery.method == SecurityEventTransmitter.pushDelivery, let url = delivery.endpointURL else {
            throw SecurityEventError.invalid("delivery", "must be {\"method\": \"\(SecurityEventTransmitter.pushDelivery)\", \"endpoint_url\": …}: push is the one method")
        }
        return url
    }

    private static func configuration(_ stream: SecurityEventStream, issuer: String) -> StreamConfiguration {
        StreamConfiguration(streamID: stream.id, iss: issuer, aud: stream.apiKeyID, delivery: StreamDelivery(endpointURL: stream.endpointURL),
                            eventsSupported: SecurityEventType.requestable.map(\.rawValue), eventsRequested: stream.eventsRequested,
                            eventsDelivered: stream.eventsDelivered, description: stream.description)
    }
}
