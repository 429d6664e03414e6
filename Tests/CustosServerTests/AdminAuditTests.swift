import CustosAPI
import CustosCore
import CustosSDK
import CustosTestSupport
import Foundation
import Testing

/// Every administrator and relying-party action leaves an audit event naming its actor (the
/// API key), written in the same transaction as the change: no change without its record.
@Suite struct AdminAuditTests {
    static func events(_ live: LiveServer, actor: String, admin: String) async throws -> [AuditEventInfo] {
        let list: AuditEventList = try await RawAPI(base: live.baseURL).get("/v1/admin/audit?actor=\(actor)&limit=500", bearer: admin)
        return list.events
    }

    @Test(arguments: StoreKind.available)
    func everyActionIsAuditedWithItsActor(kind: StoreKind) async throws {
        let live = try LiveServer.make(kind)
        defer { live.stop() }
        let (adminKey, adminSecret) = try live.apiKeys.create(scope: .admin, label: "ops", actor: "test")
        let admin = try CustosAdminClient(serverURL: live.baseURL, apiKey: adminSecret, timeout: TestEnvironment.requestTimeout)
        let rp = try live.admin()
        let rpID = live.relyingPartyKey.id
        let api = RawAPI(base: live.baseURL)

        // The administrator: a key made and revoked, an OpenID client registered and deleted.
        let made: APIKeyInfo = try await api.post("/v1/admin/api-keys", CreateAPIKeyRequest(scope: "rp", label: "spare"), bearer: adminSecret)
        #expect(try await api.deleteStatus("/v1/admin/api-keys/\(made.id)", bearer: adminSecret) < 300)
        let client = try await admin.createOIDCClient(CreateOIDCClientRequest(name: "App", clientType: "public",
                                                                               redirectURIs: [SignInFixture.redirect]))
        try await admin.deleteOIDCClient(client.clientID)

        // The relying party: a user's whole life.
        let userID = "audited-\(UUID().uuidString.prefix(8))"
        let created = try await rp.createUser(userID)
        let code = try await rp.issueActivationCode(userID)
        _ = created
        let device = try live.client()
        let activated = try await device.activate(userID: userID, activationCode: code.activationCode, password: IdentityFlowTests.password,
                                                  deviceName: "phone")
        #expect(try await api.postData("/v1/users/\(userID)/registration-code", RawAPI.Empty(), bearer: live.relyingPartySecret).0 == 201)
        _ = try await rp.disableUser(userID)
        _ = try await rp.enableUser(userID)
        _ = try await rp.unlockUser(userID)
        _ = try await rp.createNotification(CreateNotificationRequest(
            userID: userID, subject: "Sign-in", message: "Is this you?", actions: [NotificationAction(label: "Yes", action: "approve", authLevel: 0)]))
        try await rp.revokeDevice(userID: userID, deviceID: try #require(activated.deviceID))
        _ = try await rp.resetUser(userID)
        try await rp.deleteUser(userID)
        let (cibaStatus, _) = try await api.postData("/v1/ciba/client", CIBAClientRegistration(backchannelTokenDeliveryMode: "poll"),
                                                     bearer: live.relyingPartySecret)
        #expect(cibaStatus < 300)

        let byAdmin = try await Self.events(live, actor: adminKey.id, admin: adminSecret).map(\.kind)
        #expect(byAdmin == ["api_key.created", "api_key.revoked", "oidc.client_created", "oidc.client_deleted"], "\(byAdmin)")
        let byRP = try await Self.events(live, actor: rpID, admin: adminSecret)
        #expect(byRP.map(\.kind) == [
            "user.created", "user.activation_code_issued", "user.registration_code_issued", "user.disabled", "user.enabled",
            "user.unlocked", "notification.created", "device.revoked", "user.reset", "user.deleted", "ciba.client_registered",
        ], "\(byRP.map(\.kind))")
        #expect(byRP.allSatisfy { $0.details["actor"] == rpID })
        // The first device's binding is recorded too, with its proof.
        let all: AuditEventList = try await api.get("/v1/admin/audit?user=\(userID)&limit=500", bearer: adminSecret)
        #expect(all.events.contains { $0.kind == "device.registered" && $0.details["proof"] == "activation_code" })
        // And the chain holds it all.
        let verified: AuditVerificationInfo = try await api.post("/v1/admin/audit/verify", RawAPI.Empty(), bearer: adminSecret)
        #expect(verified.intact)
    }

    /// No change without its record: with the audit store failing, a disable, a device
    /// revocation and a new key are refused (503) and nothing changed.
    @Test func aChangeWhoseEventCannotBeWrittenDoesNotHappen() async throws {
        let store = try LiveServer.store(.sqlite)
        let faults = FaultyAuditStore(store)
        let live = try LiveServer(store: store, auditStore: faults)
        defer { live.stop() }
        let device = try await BoundSignInAttackTests.RawDevice.make(live)
        let rp = try live.admin()
        faults.failAppends(true)
        await expectError("database_unavailable") { try await rp.disableUser(device.userID) }
        await expectError("database_unavailable") { try await rp.revokeDevice(userID: device.userID, deviceID: device.deviceID) }
        #expect(throws: (any Error).self) { try live.apiKeys.create(scope: .rp, label: "ghost", actor: "test") }
        faults.failAppends(false)
        #expect(try await rp.user(device.userID).status == "active")
        #expect(try await rp.devices(device.userID).allSatisfy { $0.revokedAt == nil })
        #expect(try live.apiKeys.list().allSatisfy { $0.label != "ghost" })
        #expect(try await RevocationTests.sessionStatus(live, device.sessionToken) == 200)
    }
}
