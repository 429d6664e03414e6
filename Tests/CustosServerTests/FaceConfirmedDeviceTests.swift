import CustosAPI
import CustosCore
import CustosSDK
import CustosTestSupport
import Foundation
import Testing

/// A device the password alone bound (where the operator allows it) is confirmed by a server
/// face match taken in its own session: the live face matches the template the user enrolled
/// from a confirmed device. Another person's face, or a match made on another device, confirms
/// nothing.
@Suite(needsFaces) struct FaceConfirmedDeviceTests {
    func camera(_ live: LiveServer, _ sequence: String, _ range: ClosedRange<Int>) throws -> RecordedFrames {
        RecordedFrames(frames: try FaceFixture.frames(sequence, range), framesPerSecond: FaceFixture.framesPerSecond(sequence), clock: live.clock)
    }

    func boundBy(_ live: LiveServer, _ userID: String, _ deviceID: String) async throws -> String? {
        try await live.admin().devices(userID).first { $0.deviceID == deviceID }?.boundBy
    }

    @Test(arguments: StoreKind.available)
    func aFaceMatchInItsOwnSessionConfirmsAPasswordBoundDevice(kind: StoreKind) async throws {
        var policy = IdentityPolicy()
        policy.passwordRegistration = true
        let live = try LiveServer(store: LiveServer.store(kind), policy: policy, idv: IDVFlowTests.blinkOnly)
        defer { live.stop() }
        let (phone, userID, phoneID) = try await IdentityFlowTests.activatedUser(live)
        let enrolled = try await phone.initiateIDVBiometricOptIn(consentVersion: "v1", frameSource: camera(live, "blink_selfie", 1...25))
        #expect(enrolled.templateCreated)

        let tablet = try live.client()
        let registered = try await tablet.registerDevice(userID: userID, password: IdentityFlowTests.password, deviceName: "tablet")
        let tabletID = try #require(registered.deviceID)
        #expect(try await boundBy(live, userID, tabletID) == DeviceBinding.password.rawValue)
        do {
            _ = try await tablet.optOutIDVBiometric()
            Issue.record("a device the password alone bound deleted the face")
        } catch let error as CustosError {
            #expect(error.code == "device_not_confirmed", "\(error)")
        }

        // A match on the phone confirms nothing else; another person's face on the tablet neither.
        let onPhone = try await phone.initiateIDVServerBiometricAuthentication(reason: "Pay", frameSource: camera(live, "blink_selfie", 38...50))
        #expect(onPhone.biometricResult?.displayText == "MATCHED")
        #expect(try await boundBy(live, userID, tabletID) == DeviceBinding.password.rawValue)
        #expect(try await boundBy(live, userID, phoneID) == DeviceBinding.activation.rawValue)
        let someoneElse = try await tablet.initiateIDVServerBiometricAuthentication(
            reason: "Confirm this device", frameSource: camera(live, "talking_obama", 10...22))
        #expect(someoneElse.biometricResult?.displayText != "MATCHED")
        #expect(try await boundBy(live, userID, tabletID) == DeviceBinding.password.rawValue)

        // The user's own live face on the tablet confirms it, audited with the transaction.
        let matched = try await tablet.initiateIDVServerBiometricAuthentication(
            reason: "Confirm this device", frameSource: camera(live, "blink_selfie", 104...118))
        #expect(matched.biometricResult?.displayText == "MATCHED")
        #expect(try await boundBy(live, userID, tabletID) == DeviceBinding.faceMatch.rawValue)
        let events = try LiveServer.audit(live.store).list(userID: userID, transactionID: matched.idvAuditInfo.idvAuditTransactionID)
        #expect(events.contains {
            $0.kind == AuditKind.deviceConfirmed.rawValue && $0.details["device_id"] == tabletID && $0.details["proof"] == "face_match"
        })
        // Now it answers for a bound device, on probation: one bypassed liveness check must not
        // hand over the account, so the face template, the password and the other devices wait.
        let listed = try #require(try await live.admin().devices(userID).first { $0.deviceID == tabletID })
        #expect(listed.probationUntil != nil)
        #expect(events.contains { $0.kind == AuditKind.deviceConfirmed.rawValue && $0.details["probation_until"] != nil })
        do {
            _ = try await tablet.optOutIDVBiometric()
            Issue.record("a device on probation deleted the face")
        } catch let error as CustosError {
            #expect(error.code == "device_on_probation", "\(error)")
        }
        do {
            _ = try await tablet.changePassword(userID: userID, oldPassword: IdentityFlowTests.password, newPassword: "the attacker's own passphrase")
            Issue.record("a device on probation changed the password")
        } catch let error as CustosError {
            #expect(error.code == "device_on_probation", "\(error)")
        }
        #expect(try await phone.login(userID: userID, deviceID: phoneID, password: IdentityFlowTests.password).statusCode == 100)
        // The phone is told, and can unbind it with one signed answer.
        let notice = try #require(try await phone.getNotifications().notifications.first { $0.message.contains("match of your face") })
        #expect(notice.actions.map(\.action).contains(DeviceApprovalService.unbindAction(tabletID)))
    }
}
