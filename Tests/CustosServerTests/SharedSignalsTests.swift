import CustosAPI
import CustosCore
import CustosSDK
import CustosServer
import CustosTestSupport
import Foundation
import Testing

/// OpenID Shared Signals: a relying party's stream gets a CAEP event, as a Security Event Token
/// that PyJWT verifies against the JWKS, for every binding and every revocation of its users,
/// and nothing about another relying party's users.
@Suite struct SharedSignalsTests {
    static let sessionRevoked = SecurityEventType.sessionRevoked.rawValue
    static let credentialChange = SecurityEventType.credentialChange.rawValue

    struct Pushed {
        let uri: String
        let event: [String: Any]
        let claims: [String: Any]
    }

    /// The tokens the receiver got, checked by PyJWT (Tests/Clients/verify_security_events.py).
    func verified(_ live: LiveServer, _ receiver: WebhookReceiver, audience: String) throws -> [Pushed] {
        #expect(receiver.requests.allSatisfy { $0.contentType == "application/secevent+jwt" })
        let tokens = receiver.processed.map { String(decoding: $0.body, as: UTF8.self) }
        let outside = try OutsideClients.run("verify_security_events.py", [live.baseURL.absoluteString + "/.well-known/jwks.json",
                                                                           LiveServer.verdictSigning.issuer, audience] + tokens)
        #expect(outside.status == 0, "\(outside.output)")
        let list = try #require(try JSONSerialization.jsonObject(with: Data(outside.output.utf8)) as? [[String: Any]], "\(outside.output)")
        return try list.map { item in
            let claims = try #require(item["claims"] as? [String: Any])
            let (uri, event) = try #require((claims["events"] as? [String: [String: Any]])?.first)
            return Pushed(uri: uri, event: event, claims: claims)
        }
    }

    func stream(_ live: LiveServer, key: String, to url: String) async throws -> StreamConfiguration {
        try await RawAPI(base: live.baseURL).post("/ssf/streams", StreamConfigurationRequest(delivery: StreamDelivery(endpointURL: url)), bearer: key)
    }

    @Test(.enabled(if: OutsideClients.shouldRun, Comment(rawValue: OutsideClients.missingMessage)), arguments: StoreKind.available)
    func aDeviceRevocationReachesTheRelyingPartysStreamAsAVerifiedCAEPEvent(kind: StoreKind) async throws {
        let live = try LiveServer(store: LiveServer.store(kind), webhooks: true, configure: WebhookDeliveryTests.fast)
        defer { live.stop() }
        let receiver = try WebhookReceiver(), bystander = try WebhookReceiver()
        defer { receiver.stop(); bystander.stop() }
        let created = try await stream(live, key: live.relyingPartySecret, to: receiver.url)
        #expect(created.aud == live.relyingPartyKey.id && created.eventsDelivered == [Self.credentialChange, Self.sessionRevoked])
        let (otherKey, otherSecret) = try live.apiKeys.create(scope: .rp, label: "another bank", actor: "test")
        _ = try await stream(live, key: otherSecret, to: bystander.url)

        // The user binds a second device with a registration code, then the relying party revokes it.
        let (_, userID, _) = try await IdentityFlowTests.activatedUser(live)
        let link = try await live.admin().issueRegistrationCode(userID)
        let laptop = try await live.client().registerDevice(userID: userID, registrationCode: link.registrationCode, deviceName: "laptop")
        let laptopID = try #require(laptop.deviceID)
        try await live.admin().revokeDevice(userID: userID, deviceID: laptopID)
        #expect(await receiver.wait { $0.count >= 4 }, "\(receiver.requests.count) events")

        let pushed = try verified(live, receiver, audience: live.relyingPartyKey.id)
        for event in pushed {
            let subject = try #require(event.claims["sub_id"] as? [String: String])
            #expect(subject == ["format": "iss_sub", "iss": LiveServer.verdictSigning.issuer, "sub": userID])
        }
        let bound = pushed.filter { $0.uri == Self.credentialChange && $0.event["change_type"] as? String == "create" }
        #expect(bound.contains { $0.event["device_id"] as? String == laptopID && $0.event["binding"] as? String == "registration_code"
                && $0.event["client_address"] as? String == "127.0.0.1" && $0.event["friendly_name"] as? String == "laptop" })
        #expect(pushed.contains { $0.uri == Self.sessionRevoked && $0.event["device_id"] as? String == laptopID
                && $0.event["initiating_entity"] as? String == "admin" })
        #expect(pushed.contains { $0.uri == Self.credentialChange && $0.event["change_type"] as? String == "revoke"
                && $0.event["credential_type"] as? String == "app" })
        // One relying party hears nothing of another's users.
        try await Task.sleep(for: .milliseconds(300))
        #expect(bystander.requests.isEmpty, "\(bystander.requests.count) events reached another relying party")
        _ = otherKey
    }

    @Test func theTransmitterIsDiscoverableAndTheStreamIsTheKeysToManage() async throws {
        let live = try LiveServer(store: LiveServer.store(.sqlite), webhooks: true, configure: WebhookDeliveryTests.fast)
        defer { live.stop() }
        let api = RawAPI(base: live.baseURL)
        let metadata: TransmitterConfiguration = try await api.get("/.well-known/ssf-configuration")
        #expect(metadata.issuer == LiveServer.verdictSigning.issuer && metadata.deliveryMethodsSupported == ["urn:ietf:rfc:8935"])
        #expect(metadata.jwksURI.hasSuffix("/.well-known/jwks.json") && metadata.configurationEndpoint.hasSuffix("/ssf/streams"))

        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        let key = live.relyingPartySecret
        // Push is the one delivery method, and a stream's endpoint is checked as webhooks are.
        let (pollStatus, poll) = try await api.postRaw("/ssf/streams", StreamConfigurationRequest(
            delivery: StreamDelivery(method: "urn:ietf:rfc:8936", endpointURL: nil)), bearer: key)
        #expect(pollStatus == 400 && poll.error.code == "invalid_field")
        let (metadataStatus, _) = try await api.postRaw("/ssf/streams", StreamConfigurationRequest(
            delivery: StreamDelivery(endpointURL: "http://169.254.169.254/latest")), bearer: key)
        #expect(metadataStatus == 422)
        let created = try await stream(live, key: key, to: receiver.url)
        let (again, exists) = try await api.postRaw("/ssf/streams", StreamConfigurationRequest(delivery: StreamDelivery(endpointURL: receiver.url)),
                                                    bearer: key)
        #expect(again == 409 && exists.error.code == "stream_exists")

        // Read, narrow, verify, delete; another key sees none of it.
        let listed: [StreamConfiguration] = try await api.get("/ssf/streams", bearer: key)
        #expect(listed == [created])
        let (_, otherSecret) = try live.apiKeys.create(scope: .rp, label: "other", actor: "test")
        let (otherStatus, _) = try await api.getStatus("/ssf/streams?stream_id=\(created.streamID)", bearer: otherSecret)
        #expect(otherStatus == 404)
        let narrowed: StreamConfiguration = try await api.request("/ssf/streams", method: "PATCH", StreamConfigurationRequest(
            streamID: created.streamID, eventsRequested: [Self.sessionRevoked, "https://example.com/unknown"]), bearer: key)
        #expect(narrowed.eventsDelivered == [Self.sessionRevoked] && narrowed.eventsRequested.count == 2)
        let (verifyStatus, _) = try await api.postData("/ssf/verify", StreamVerificationRequest(streamID: created.streamID, state: "s-42"),
                                                       bearer: key)
        #expect(verifyStatus == 204)
        #expect(await receiver.wait { !$0.isEmpty })
        let verification = try #require(try verified(live, receiver, audience: live.relyingPartyKey.id).first)
        #expect(verification.uri == SecurityEventType.verification.rawValue && verification.event["state"] as? String == "s-42")
        #expect(try await api.deleteStatus("/ssf/streams?stream_id=\(created.streamID)", bearer: key) == 204)
        let after: [StreamConfiguration] = try await api.get("/ssf/streams", bearer: key)
        #expect(after.isEmpty)
    }
}
