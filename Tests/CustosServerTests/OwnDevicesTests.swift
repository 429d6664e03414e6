import CustosAPI
import CustosCore
import CustosCrypto
import CustosSDK
import CustosTestSupport
import Foundation
import Testing

/// The user sees and controls what is bound to them, from any bound device: the list, and an
/// unbinding that needs the password again (a stolen session alone unbinds nothing).
@Suite struct OwnDevicesTests {
    @Test(arguments: StoreKind.available)
    func aUserListsAndUnbindsTheirDevicesWithThePassword(kind: StoreKind) async throws {
        let live = try LiveServer.make(kind)
        defer { live.stop() }
        let (phone, userID, phoneID) = try await IdentityFlowTests.activatedUser(live)
        // A second device, bound with a registration code.
        let code: RegistrationCodeInfo = try await RawAPI(base: live.baseURL).post(
            "/v1/users/\(userID)/registration-code", RawAPI.Empty(), bearer: live.relyingPartySecret)
        let laptop = try live.client()
        let registered = try await laptop.registerDevice(userID: userID, registrationCode: code.registrationCode, deviceName: "laptop")
        let laptopID = try #require(registered.deviceID)
        let laptopSession = try #require(registered.session?.token)

        let listed = try await phone.devices()
        #expect(Set(listed.map(\.deviceID)) == [phoneID, laptopID] && listed.allSatisfy { $0.userID == userID && $0.revokedAt == nil })

        // A wrong password unbinds nothing and counts; another user's device is not found.
        let wrong = try await phone.revokeDevice(laptopID, password: "not the password")
        #expect(wrong.statusCode == 401 && wrong.attemptsLeft == 4)
        let (other, _, otherDevice) = try await IdentityFlowTests.activatedUser(live)
        _ = other
        await expectError("device_not_found") { try await phone.revokeDevice(otherDevice, password: IdentityFlowTests.password) }

        let done = try await phone.revokeDevice(laptopID, password: IdentityFlowTests.password)
        #expect(done.statusCode == 100)
        #expect(try await phone.devices().first { $0.deviceID == laptopID }?.revokedAt != nil)
        // The laptop's session ends with it.
        #expect(try await RevocationTests.sessionStatus(live, laptopSession) == 401)
        let events = try live.store.auditEvents(afterSequence: 0, limit: 200, userID: userID, transactionID: nil)
        #expect(events.contains { $0.kind == "device.revoked" && $0.details["device_id"] == laptopID && $0.details["actor"]?.hasPrefix("session:") == true })
        await expectError("device_not_found") { try await phone.revokeDevice(laptopID, password: IdentityFlowTests.password) }
    }
}
