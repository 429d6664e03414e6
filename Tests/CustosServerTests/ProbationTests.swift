import CustosAPI
import CustosCore
import CustosCrypto
import CustosSDK
import CustosTestSupport
import Foundation
import Testing

/// A device bound or confirmed without the approval of an already bound device (a registration
/// code, a face match) is on probation: for `IdentityPolicy.probation` it cannot change the
/// password, unbind or approve devices, end the user's other sessions or change the face
/// template; the user's other devices are told at once and any of them unbinds it with one
/// signed answer, which the device itself cannot answer away.
@Suite struct ProbationTests {
    /// The phone of `fixture`, signed in, and a laptop bound with a registration code.
    func phoneAndLaptop(_ fixture: SignInFixture) async throws -> (phone: CustosClient, laptop: CustosClient, laptopID: String) {
        let phone = try await DeviceBindingTests().signedInPhone(fixture)
        let link = try await fixture.live.admin().issueRegistrationCode(fixture.userID)
        let laptop = try fixture.live.client()
        let bound = try await laptop.registerDevice(userID: fixture.userID, registrationCode: link.registrationCode, deviceName: "laptop")
        return (phone, laptop, try #require(bound.deviceID))
    }

    @Test(arguments: StoreKind.available)
    func aDeviceBoundByARegistrationCodeCannotTakeTheAccountOverDuringItsProbation(kind: StoreKind) async throws {
        let fixture = try await SignInFixture.make(kind)
        defer { fixture.live.stop() }
        let (phone, laptop, laptopID) = try await phoneAndLaptop(fixture)
        let api = RawAPI(base: fixture.live.baseURL)
        let bearer = try #require(laptop.session.sessionToken)

        let listed = try #require(try await fixture.live.admin().devices(fixture.userID).first { $0.deviceID == laptopID })
        let until = try #require(listed.probationUntil)
        #expect(abs(until.timeIntervalSince(fixture.live.clock.now()) - IdentityPolicy().probation) < 60)
        let registered = try #require(try fixture.live.store.auditEvents(afterSequence: 0, limit: 100, userID: fixture.userID, transactionID: nil)
            .first { $0.kind == AuditKind.deviceRegistered.rawValue && $0.details["device_id"] == laptopID })
        #expect(registered.details["probation_from"] != nil && registered.details["probation_until"] != nil)

        // What would take the account over waits.
        #expect(await errorCode { try await laptop.changePassword(userID: fixture.userID, oldPassword: IdentityFlowTests.password,
                                                                  newPassword: "the attacker's own passphrase") } == "device_on_probation")
        #expect(await errorCode { try await laptop.revokeDevice(fixture.deviceID, password: IdentityFlowTests.password) } == "device_on_probation")
        let phoneSession = try #require(try await phone.sessions().first { $0.deviceID == fixture.deviceID })
        #expect(try await api.deleteStatus("/v1/sessions/\(phoneSession.sessionID)", bearer: bearer) == 403)
        // Approving a device it would bring in.
        let tablet = try fixture.live.client()
        let approval = try await tablet.requestDeviceApproval(userID: fixture.userID, deviceName: "tablet", password: IdentityFlowTests.password)
        let prompt = try #require(try await laptop.getNotifications().notifications.first { $0.subject.contains("new device asks") })
        let (approveStatus, approveError) = try await api.postRaw("/v1/notifications/\(prompt.notificationUUID)/actions",
                                                                  UpdateNotificationRequest(action: "approve", number: approval.number), bearer: bearer)
        #expect(approveStatus == 403 && approveError.error.code == "device_on_probation")
        #expect(try await fixture.live.admin().devices(fixture.userID).allSatisfy { $0.revokedAt == nil })
        #expect(try await phone.login(userID: fixture.userID, deviceID: fixture.deviceID, password: IdentityFlowTests.password).statusCode == 100)

        // The phone was told, with a one-answer unbind; the laptop cannot answer the notice away.
        let notice = try #require(try await phone.getNotifications().notifications.first { $0.subject.contains("device was bound") })
        #expect(notice.actions.map(\.action) == ["ok", DeviceApprovalService.unbindAction(laptopID)])
        #expect(notice.message.contains("registration code") && notice.message.contains("Until"))
        let (hide, hideError) = try await api.postRaw("/v1/notifications/\(notice.notificationUUID)/actions",
                                                      UpdateNotificationRequest(action: "ok"), bearer: bearer)
        #expect(hide == 403 && hideError.error.code == "notice_about_this_device")
        // Nor can a second new device, on probation too, answer it for the laptop.
        let other = try fixture.live.client()
        let otherLink = try await fixture.live.admin().issueRegistrationCode(fixture.userID)
        let otherBound = try await other.registerDevice(userID: fixture.userID, registrationCode: otherLink.registrationCode, deviceName: "other")
        let (ack, ackError) = try await api.postRaw("/v1/notifications/\(notice.notificationUUID)/actions", UpdateNotificationRequest(action: "ok"),
                                                    bearer: try #require(otherBound.session?.token))
        #expect(ack == 403 && ackError.error.code == "device_on_probation", "\(ack) \(ackError)")
        let unbound = try await phone.updateNotification(notice, action: DeviceApprovalService.unbindAction(laptopID))
        #expect(unbound.statusCode == 100)
        #expect(try await fixture.live.admin().devices(fixture.userID).first { $0.deviceID == laptopID }?.revokedAt != nil)
        #expect(await errorCode { try await laptop.sessions() } == "invalid_session")
    }

    /// Once the probation is over the device may do what any bound device may.
    @Test func theProbationEnds() async throws {
        let fixture = try await SignInFixture.make(.sqlite)
        defer { fixture.live.stop() }
        let (_, laptop, laptopID) = try await phoneAndLaptop(fixture)
        #expect(await errorCode { try await laptop.changePassword(userID: fixture.userID, oldPassword: IdentityFlowTests.password,
                                                                  newPassword: "a brand new long passphrase") } == "device_on_probation")
        fixture.live.clock.advance(by: IdentityPolicy().probation + 1)
        #expect(try await laptop.login(userID: fixture.userID, deviceID: laptopID, password: IdentityFlowTests.password).statusCode == 100)
        let changed = try await laptop.changePassword(userID: fixture.userID, oldPassword: IdentityFlowTests.password,
                                                      newPassword: "a brand new long passphrase")
        #expect(changed.statusCode == 100)
    }

    /// Two nodes on one PostgreSQL: a device bound on one is on probation on the other, and an
    /// approval asked on one is answered on the other and claimed on the first.
    @Test(.enabled(if: StoreKind.available.contains(.postgresql)))
    func probationAndApprovalsHoldAcrossTwoNodes() async throws {
        let (first, second) = try LiveServer.postgresNodes()
        defer { first.stop(); second.stop() }
        let userID = "user-\(UUID().uuidString.prefix(8))"
        let created = try await first.admin().createUser(userID)
        let keys = FileManager.default.temporaryDirectory.appendingPathComponent("custos-keys-\(UUID().uuidString)")
        let phone = try first.client(keys: keys) { $0.localAuthentication = { _ in true } }
        #expect(try await phone.activate(userID: userID, activationCode: created.activation.activationCode,
                                         password: IdentityFlowTests.password, deviceName: "phone").statusCode == 100)
        let link = try await first.admin().issueRegistrationCode(userID)
        let laptop = try first.client()
        _ = try await laptop.registerDevice(userID: userID, registrationCode: link.registrationCode, deviceName: "laptop")
        let onSecond = RawAPI(base: second.baseURL)
        let (change, changeError) = try await onSecond.postRaw("/v1/password/change", ChangePasswordRequest(
            userID: userID, oldPassword: IdentityFlowTests.password, newPassword: "the attacker's own passphrase"),
                                                               bearer: try #require(laptop.session.sessionToken))
        #expect(change == 403 && changeError.error.code == "device_on_probation")

        // The approval: asked and claimed on the second node, answered from the phone on the first.
        let tablet = try second.client()
        let approval = try await tablet.requestDeviceApproval(userID: userID, deviceName: "tablet", password: IdentityFlowTests.password)
        let prompt = try #require(try await phone.getNotifications().notifications.first { $0.subject.contains("new device asks") })
        #expect(try await phone.updateNotification(prompt, action: "approve", number: approval.number).statusCode == 100)
        let bound = try await tablet.awaitDeviceApproval(approval, interval: .milliseconds(50))
        #expect(bound.statusCode == 100)
        let devices = try await first.admin().devices(userID)
        #expect(devices.first { $0.deviceID == bound.deviceID }?.boundBy == "device_approval")
        #expect(devices.first { $0.deviceID == bound.deviceID }?.probationUntil == nil, "approved by a bound device: no probation")
    }
}
