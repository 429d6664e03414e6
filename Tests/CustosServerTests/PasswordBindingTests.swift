import CustosAPI
import CustosCore
import CustosSDK
import CustosTestSupport
import Foundation
import Testing

/// A binding that rests on the password ends with the password, and until a stronger proof
/// confirms it such a device cannot take the account over: with a phished password (where the
/// operator turned password registration on), an attacker's device gets no password change
/// token, is unbound when the password is expired or changed, cannot end the user's other
/// sessions, and cannot spend the user's face attempts.
@Suite(needsFaces) struct PasswordBindingTests {
    static func passwordRegistration() -> IdentityPolicy {
        var policy = IdentityPolicy()
        policy.passwordRegistration = true
        return policy
    }

    struct Fixture {
        let live: LiveServer
        let phone: CustosClient
        let userID: String
        let phoneID: String
        let tablet: CustosClient
        let tabletID: String

        func device(_ id: String) async throws -> DeviceInfo? {
            try await live.admin().devices(userID).first { $0.deviceID == id }
        }
    }

    /// The user's phone (activated) and an attacker's tablet bound by the phished password alone.
    static func fixture(_ kind: StoreKind) async throws -> Fixture {
        let live = try LiveServer(store: LiveServer.store(kind), policy: passwordRegistration(), idv: IDVFlowTests.blinkOnly)
        let (phone, userID, phoneID) = try await IdentityFlowTests.activatedUser(live)
        let tablet = try live.client()
        let registered = try await tablet.registerDevice(userID: userID, password: IdentityFlowTests.password, deviceName: "tablet")
        let tabletID = try #require(registered.deviceID)
        return Fixture(live: live, phone: phone, userID: userID, phoneID: phoneID, tablet: tablet, tabletID: tabletID)
    }

    func camera(_ live: LiveServer, _ sequence: String, _ range: ClosedRange<Int>) throws -> RecordedFrames {
        RecordedFrames(frames: try FaceFixture.frames(sequence, range), framesPerSecond: FaceFixture.framesPerSecond(sequence), clock: live.clock)
    }

    @Test(arguments: StoreKind.available)
    func expiringThePasswordUnbindsTheDevicesItAloneBound(kind: StoreKind) async throws {
        let f = try await Self.fixture(kind)
        defer { f.live.stop() }
        _ = try await f.live.admin().expirePassword(f.userID)

        #expect(try await f.device(f.tabletID)?.revokedAt != nil)
        #expect(try await f.device(f.phoneID)?.revokedAt == nil)
        await expectError("invalid_session") { try await f.tablet.sessions() }
        // The phished password signs nothing in, and no change token comes back.
        let again = try await f.tablet.login(userID: f.userID, deviceID: f.tabletID, password: IdentityFlowTests.password)
        #expect(again.statusCode != 100 && again.statusCode != 110 && again.passwordChangeToken == nil)
        // The user's own phone changes it.
        let phoneLogin = try await f.phone.login(userID: f.userID, deviceID: f.phoneID, password: IdentityFlowTests.password)
        #expect(phoneLogin.statusCode == 110 && phoneLogin.passwordChangeToken != nil)
        let revoked = try LiveServer.audit(f.live.store).list(userID: f.userID, transactionID: nil).filter {
            $0.kind == AuditKind.deviceRevoked.rawValue && $0.details["device_id"] == f.tabletID
        }
        #expect(revoked.count == 1 && revoked.first?.details["reason"]?.contains("expired") == true)
    }

    @Test(arguments: StoreKind.available)
    func changingThePasswordUnbindsTheDevicesItAloneBound(kind: StoreKind) async throws {
        let f = try await Self.fixture(kind)
        defer { f.live.stop() }
        let changed = try await f.phone.changePassword(userID: f.userID, oldPassword: IdentityFlowTests.password,
                                                       newPassword: "a brand new long passphrase")
        #expect(changed.statusCode == 100)
        #expect(try await f.device(f.tabletID)?.revokedAt != nil)
        await expectError("invalid_session") { try await f.tablet.sessions() }
        #expect(try await f.phone.sessions().count == 1)
    }

    /// A password aged past its maximum: the user's confirmed device gets a change token, the
    /// device the password alone bound gets 110 without one (it must not replace the password).
    @Test func anAgedPasswordGivesNoChangeTokenToADeviceThePasswordAloneBound() async throws {
        let f = try await Self.fixture(.sqlite)
        defer { f.live.stop() }
        f.live.clock.advance(by: 91 * 24 * 3600)
        let tabletLogin = try await f.tablet.login(userID: f.userID, deviceID: f.tabletID, password: IdentityFlowTests.password)
        #expect(tabletLogin.statusCode == 110 && tabletLogin.passwordChangeToken == nil)
        let phoneLogin = try await f.phone.login(userID: f.userID, deviceID: f.phoneID, password: IdentityFlowTests.password)
        #expect(phoneLogin.statusCode == 110 && phoneLogin.passwordChangeToken != nil)
    }

    @Test(arguments: StoreKind.available)
    func aDeviceThePasswordAloneBoundEndsOnlyItsOwnSession(kind: StoreKind) async throws {
        let f = try await Self.fixture(kind)
        defer { f.live.stop() }
        let api = RawAPI(base: f.live.baseURL)
        let phoneSession = try #require(try await f.phone.sessions().first { $0.deviceID == f.phoneID })
        let tabletBearer = try #require(f.tablet.session.sessionToken)
        #expect(try await api.deleteStatus("/v1/sessions/\(phoneSession.sessionID)", bearer: tabletBearer) == 403)
        #expect(try await f.phone.sessions().contains { $0.sessionID == phoneSession.sessionID })
        let own = try #require(try await f.tablet.sessions().first { $0.deviceID == f.tabletID })
        #expect(try await api.deleteStatus("/v1/sessions/\(own.sessionID)", bearer: tabletBearer) == 204)
    }

    /// Another face, again and again from the tablet: the user's attempts stay whole (no 153
    /// for her), a document scan is refused outright, and the tablet's own tries run out and
    /// unbind it.
    @Test(arguments: StoreKind.available)
    func aDeviceThePasswordAloneBoundCannotSpendTheUsersFaceAttempts(kind: StoreKind) async throws {
        let f = try await Self.fixture(kind)
        defer { f.live.stop() }
        let enrolled = try await f.phone.initiateIDVBiometricOptIn(consentVersion: "v1", frameSource: camera(f.live, "blink_selfie", 1...25))
        #expect(enrolled.templateCreated)
        let obama = try FaceFixture.frames("talking_obama", 1...1)[0]
        await expectError("device_not_confirmed") {
            try await f.tablet.initiateIDVAdditionalDocumentScan(reason: "Scan", front: obama, back: nil)
        }
        let user = f.live.identity.policy.maximumAttempts
        // (The recording has 22 frames: a window shown again fails as a replay, a failure all the same.)
        let windows = [1...12, 10...22, 5...17, 1...12, 10...22]
        for round in 1...Int(user) {
            let tried = try await f.tablet.initiateIDVServerBiometricAuthentication(
                reason: "Confirm", frameSource: camera(f.live, "talking_obama", windows[round - 1]))
            #expect(tried.biometricResult?.displayText != "MATCHED")
            #expect(tried.attemptsLeft == Int(user) - round)
            #expect(try f.live.identity.attemptsLeft(userID: f.userID, factor: .biometric) == Int(user))
        }
        #expect(try await f.device(f.tabletID)?.revokedAt != nil)
        #expect(try f.live.store.user(id: f.userID)?.lockedUntil == nil)
        let matched = try await f.phone.initiateIDVServerBiometricAuthentication(reason: "Pay", frameSource: camera(f.live, "blink_selfie", 38...50))
        #expect(matched.biometricResult?.displayText == "MATCHED")
    }

    /// Cancelling (or superseding) workflow 8 once its challenge is out costs an attempt; from a
    /// device the password alone bound it costs that kind of device's tries, shared by all of
    /// them, never the user's. A second device bound with the same password buys no more, and
    /// unbinding itself needs no password (which would count against the user).
    @Test(arguments: StoreKind.available)
    func cancelsAndNewDevicesFromAPhishedPasswordNeitherLockTheUserNorBuyTries(kind: StoreKind) async throws {
        let f = try await Self.fixture(kind)
        defer { f.live.stop() }
        _ = try await f.phone.initiateIDVBiometricOptIn(consentVersion: "v1", frameSource: camera(f.live, "blink_selfie", 1...25))
        let api = RawAPI(base: f.live.baseURL)
        let bearer = try #require(f.tablet.session.sessionToken)
        let tries = Int(f.live.identity.policy.maximumAttempts)
        for round in 1...tries {
            let challenge = try await api.challenge(bearer: bearer)
            let cancelled: IDVResultResponse = try await api.post("/v1/idv/transactions/\(challenge.idvAuditTransactionID)/cancel",
                                                                  RawAPI.Empty(), bearer: bearer)
            #expect(cancelled.attemptsLeft == tries - round || round == tries, "round \(round): \(cancelled.attemptsLeft)")
            #expect(try f.live.identity.attemptsLeft(userID: f.userID, factor: .biometric) == tries)
        }
        #expect(try await f.device(f.tabletID)?.revokedAt != nil)
        #expect(try f.live.store.user(id: f.userID)?.lockedUntil == nil)
        // Another device bound with the phished password: its tries are already spent.
        let again = try f.live.client()
        let rebound = try await again.registerDevice(userID: f.userID, password: IdentityFlowTests.password, deviceName: "tablet 2")
        #expect(rebound.statusCode == 100)
        let submitted = try await again.initiateIDVServerBiometricAuthentication(reason: "Confirm", frameSource: camera(f.live, "talking_obama", 1...12))
        #expect(submitted.statusCode == 153 && submitted.attemptsLeft == 0, "\(submitted.statusCode) \(submitted.attemptsLeft)")
        #expect(try f.live.identity.attemptsLeft(userID: f.userID, factor: .biometric) == tries)
        // Such a device unbinds itself without the password; nothing is counted against the user.
        let third = try f.live.client()
        let thirdID = try #require(try await third.registerDevice(userID: f.userID, password: IdentityFlowTests.password,
                                                                  deviceName: "tablet 3").deviceID)
        let selfUnbound = try await third.revokeDevice(thirdID, password: "not the password")
        #expect(selfUnbound.statusCode == 100)
        #expect(try f.live.identity.attemptsLeft(userID: f.userID, factor: .credentials) == tries)
    }
}
