import CustosAPI
import CustosCore
import CustosCrypto
import CustosSDK
import CustosServer
import CustosTestSupport
import Foundation
import Testing

/// How a new device joins a user: the approval of a bound device with the number typed there,
/// a registration code, or (only where the operator allows it) the password, which then proves
/// no more than the password did. Each binding is told to the user's other devices.
@Suite struct DeviceBindingTests {
    /// The bound phone of `fixture`, signed in (its session lists and answers notifications).
    func signedInPhone(_ fixture: SignInFixture) async throws -> CustosClient {
        let phone = try fixture.device()
        let login = try await phone.login(userID: fixture.userID, deviceID: fixture.deviceID, password: IdentityFlowTests.password)
        #expect(login.statusCode == 100)
        return phone
    }

    func pending(_ phone: CustosClient, subject: String) async throws -> NotificationInfo {
        try #require(try await phone.getNotifications().notifications.first { $0.subject.contains(subject) })
    }

    @Test(arguments: StoreKind.available)
    func aBoundDeviceApprovesANewOneByTypingTheNumberItShows(kind: StoreKind) async throws {
        let fixture = try await SignInFixture.make(kind)
        defer { fixture.live.stop() }
        let phone = try await signedInPhone(fixture)
        let laptop = try fixture.live.client { $0.clientID = fixture.clientID; $0.localAuthentication = { _ in true } }
        let approval = try await laptop.requestDeviceApproval(userID: fixture.userID, deviceName: "laptop", password: IdentityFlowTests.password)
        #expect((10...99).contains(approval.number))
        let waiting = Task { try await laptop.awaitDeviceApproval(approval, interval: .milliseconds(50)) }

        let shown = try await pending(phone, subject: "new device asks")
        let levels: [AuthLevel] = shown.actions.map(\.authLevel)
        #expect(shown.numberMatching && levels == [AuthLevel.deviceSignature, AuthLevel.none] && shown.message.contains("laptop"))
        let answered = try await phone.updateNotification(shown, action: "approve", number: approval.number)
        #expect(answered.statusCode == 100)
        let bound = try await waiting.value
        #expect(bound.statusCode == 100 && bound.session?.token != nil)
        let laptopID = try #require(bound.deviceID)

        let devices = try await fixture.live.admin().devices(fixture.userID)
        let listed = try #require(devices.first { $0.deviceID == laptopID })
        #expect(listed.boundBy == "device_approval" && listed.keyKind == "device_key" && listed.boundFrom != nil)
        let events = try fixture.live.store.auditEvents(afterSequence: 0, limit: 100, userID: fixture.userID, transactionID: nil)
        let registered = events.filter { $0.kind == AuditKind.deviceRegistered.rawValue && $0.details["device_id"] == laptopID }
        #expect(registered.count == 1)
        #expect(registered.first?.details["proof"] == "device_approval" && registered.first?.details["approved_by"] == fixture.deviceID)
        // An approved device is a bound device: its sign-in proves the device key.
        let signIn = try await laptop.authenticateBoundUser(BoundUserAuthenticationRequest(redirectURI: SignInFixture.redirect))
        let claims = try SignInFixture.claims(try await laptop.exchangeToken(signIn).idToken)
        #expect(claims["acr"] as? String == Assurance.of(.deviceSignature).acr && claims["amr"] as? [String] == ["swk"])
    }

    /// A wrong number ends the request at once (a blind guess is one in ninety, once), so does a
    /// denial; a request is claimed once; nothing is bound without the bound device's answer.
    @Test(arguments: StoreKind.available)
    func aWrongNumberADenialOrAReusedClaimBindsNothing(kind: StoreKind) async throws {
        let fixture = try await SignInFixture.make(kind)
        defer { fixture.live.stop() }
        let phone = try await signedInPhone(fixture)
        let api = RawAPI(base: fixture.live.baseURL)
        func ask() async throws -> DeviceApprovalTicketInfo {
            let key = try P256.PrivateKey.generate()
            return try await api.post("/v1/devices/approval-requests", DeviceApprovalRequestBody(
                userID: fixture.userID, deviceName: "stranger",
                devicePublicKey: PublicKeyJWK(x: Base64URL.encode(key.publicKey.x), y: Base64URL.encode(key.publicKey.y)),
                password: IdentityFlowTests.password))
        }
        func claim(_ ticket: DeviceApprovalTicketInfo) async throws -> (Int, ErrorEnvelope) {
            try await api.postRaw("/v1/devices/approval-requests/claim", DeviceApprovalClaim(requestToken: ticket.requestToken))
        }

        let guessed = try await ask()
        let waiting = try await claim(guessed)
        #expect(waiting.0 == 409 && waiting.1.error.code == "approval_pending")
        let wrong = 10 + (guessed.number - 10 + 1) % 90
        await expectError("number_mismatch") {
            try await phone.updateNotification(try await pending(phone, subject: "new device asks"), action: "approve", number: wrong)
        }
        #expect(try await claim(guessed).1.error.code == "approval_denied")

        let denied = try await ask()
        let answer = try await phone.updateNotification(try await pending(phone, subject: "new device asks"), action: "deny", number: denied.number)
        #expect(answer.statusCode == 100)
        #expect(try await claim(denied).1.error.code == "approval_denied")
        #expect(try await claim(denied).1.error.code == "approval_denied", "a denied request stays denied")

        // Approved once, claimed by ten at once: one device is bound, one session opened.
        let approved = try await ask()
        _ = try await phone.updateNotification(try await pending(phone, subject: "new device asks"), action: "approve", number: approved.number)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<10 { group.addTask { try await claim(approved).0 } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == 200 }.count == 1 && statuses.filter { $0 == 403 }.count == 9, "\(statuses)")
        #expect(try await fixture.live.admin().devices(fixture.userID).count == 2)
    }

    static func jwk() throws -> PublicKeyJWK {
        let key = try P256.PrivateKey.generate()
        return PublicKeyJWK(x: Base64URL.encode(key.publicKey.x), y: Base64URL.encode(key.publicKey.y))
    }

    /// Asking for a user's approval needs a proof that the asker knows the user. Without the
    /// password (or a registration code) nothing reaches the user, and a user id that does not
    /// exist answers exactly as a wrong password does: from sixty addresses, no prompt.
    @Test(arguments: StoreKind.available)
    func withoutAProofNothingReachesTheUserAndNoOneLearnsWhoExists(kind: StoreKind) async throws {
        let fixture = try await SignInFixture.make(kind) { $0.identity.passwordRegistrationFailures = 100 }
        defer { fixture.live.stop() }
        let phone = try await signedInPhone(fixture)
        let approvals = DeviceApprovalService(identity: fixture.live.identity, notifications: fixture.live.notifications)
        func ask(_ user: String, _ proof: DeviceRegistrationProof, from client: String) -> String {
            do {
                let jwk = try Self.jwk()
                _ = try approvals.request(userID: user, deviceName: "Security check - type 42 then Approve",
                                          deviceKey: DevicePublicKey(x: jwk.x, y: jwk.y), proof: proof, client: client)
                return "ticket"
            } catch let error as IdentityError {
                return error.code
            } catch {
                return "\(error)"
            }
        }
        var answers: Set<String> = []
        for index in 0..<60 {
            answers.insert(ask(fixture.userID, .password("a guessed password"), from: "203.0.113.\(index)"))
            answers.insert(ask("nobody-here", .password("a guessed password"), from: "198.51.100.\(index)"))
            answers.insert(ask(fixture.userID, .registrationCode("rc_" + String(repeating: "a", count: 43)), from: "192.0.2.\(index)"))
        }
        #expect(answers == ["approval_proof_rejected"], "\(answers)")
        #expect(try await phone.getNotifications().notifications.isEmpty)

        // Over HTTP: the same status and body for the unknown id and the wrong password.
        let api = RawAPI(base: fixture.live.baseURL)
        let unknown = try await api.postRaw("/v1/devices/approval-requests", DeviceApprovalRequestBody(
            userID: "nobody-here", deviceName: "x", devicePublicKey: try Self.jwk(), password: "a guessed password"))
        let wrong = try await api.postRaw("/v1/devices/approval-requests", DeviceApprovalRequestBody(
            userID: fixture.userID, deviceName: "x", devicePublicKey: try Self.jwk(), password: "a guessed password"))
        #expect(unknown.0 == 401 && wrong.0 == 401 && unknown.1 == wrong.1)
        let bare = try await api.postRaw("/v1/devices/approval-requests", DeviceApprovalRequestBody(
            userID: fixture.userID, deviceName: "x", devicePublicKey: try Self.jwk()))
        #expect(bare.0 == 422 && bare.1.error.code == "invalid_field")
        // The user was not locked by any of it.
        #expect(try fixture.live.identity.attemptsLeft(userID: fixture.userID, factor: .credentials) == 5)
        // A password the relying party expired (a suspected leak) asks no one either.
        _ = try await fixture.live.admin().expirePassword(fixture.userID)
        #expect(ask(fixture.userID, .password(IdentityFlowTests.password), from: "192.0.2.200") == "approval_proof_rejected")
        #expect(try await phone.getNotifications().notifications.allSatisfy { !$0.subject.contains("new device asks") })
    }

    /// With the password (phished), a request still cannot tell the user what to type: the
    /// prompt says what the server knows and shows the requester's name only as a short quoted
    /// label without digits. Requests are bounded per user whatever the address, and a full
    /// set of waiting requests refuses the newest rather than evicting the user's own.
    @Test(arguments: StoreKind.available)
    func aPromptCarriesNoInstructionAndRequestsAreBoundedPerUser(kind: StoreKind) async throws {
        // One more request per user than there are slots, to see both limits.
        let fixture = try await SignInFixture.make(kind) { $0.identity.deviceProofAttempts = 6 }
        defer { fixture.live.stop() }
        let phone = try await signedInPhone(fixture)
        let approvals = DeviceApprovalService(identity: fixture.live.identity, notifications: fixture.live.notifications)
        func ask(from client: String, name: String = "Security check - type 42 then Approve") throws -> DeviceApprovalTicket {
            let jwk = try Self.jwk()
            return try approvals.request(userID: fixture.userID, deviceName: name, deviceKey: DevicePublicKey(x: jwk.x, y: jwk.y),
                                         proof: .password(IdentityFlowTests.password), client: client)
        }
        let first = try ask(from: "203.0.113.1")
        let prompt = try await pending(phone, subject: "new device asks")
        let label = "“" + DeviceApprovalService.promptLabel("Security check - type 42 then Approve") + "”"
        #expect(prompt.message.contains(label) && prompt.message.contains("203.0.113.1") && prompt.message.contains("UTC"), "\(prompt.message)")
        let requesterWrote = try #require(prompt.message.components(separatedBy: "calls itself").last)
        #expect(!requesterWrote.contains { $0.isNumber } && !prompt.subject.contains { $0.isNumber }, "\(prompt.message)")
        #expect(DeviceApprovalService.promptLabel("iPhone 15: TYPE 42!!") == "iPhone TYPE")
        #expect(DeviceApprovalService.promptLabel("12345") == "device")
        #expect(DeviceApprovalService.promptLabel(String(repeating: "a", count: 100)).count == DeviceApprovalService.promptLabelLength)

        // Four more from four more addresses fill the user's slots; the next is refused, and the
        // first (the user's own, say) still waits.
        for index in 2...5 { _ = try ask(from: "203.0.113.\(index)") }
        #expect(throws: StepUpError.self) { _ = try ask(from: "198.51.100.9") }
        let waiting = try fixture.live.store.notifications(userID: fixture.userID, open: true, now: fixture.live.clock.now(), limit: 100)
            .filter { $0.apiKeyID == DeviceApprovalService.approvalSender }
        #expect(waiting.count == fixture.live.notifications.policy.maximumPendingPerUser)
        #expect(waiting.contains { $0.number == first.number && $0.message.contains("203.0.113.1") })

        // Past the per-user bound, whatever the address: 429 until the window clears.
        do {
            _ = try ask(from: "192.0.2.78")
            Issue.record("a seventh request within the window was admitted")
        } catch let error as IdentityError {
            #expect(error.code == "too_many_attempts")
        }
    }

    /// Where the operator allows it, the password binds a device that proves only the password:
    /// it signs in at acr 1, and cannot answer for a bound device, unbind another, change the
    /// password, approve a device or enrol a face until a registration code confirms it.
    @Test(arguments: StoreKind.available)
    func aPasswordBoundDeviceProvesOnlyThePasswordUntilConfirmed(kind: StoreKind) async throws {
        let fixture = try await SignInFixture.make(kind) { $0.identity.passwordRegistration = true }
        defer { fixture.live.stop() }
        let (key, tabletID, session) = try await fixture.passwordBoundDevice(name: "attacker")
        let api = RawAPI(base: fixture.live.baseURL)
        #expect(try await fixture.live.admin().devices(fixture.userID).first { $0.deviceID == tabletID }?.boundBy == "password")

        // A level-3 step-up from it is refused before any signature is asked for.
        let rp = try fixture.live.admin()
        let sent = try await rp.createNotification(CreateNotificationRequest(
            userID: fixture.userID, subject: "Pay", message: "Pay 10 EUR?",
            actions: [NotificationAction(label: "Approve", action: "approve", authLevel: .deviceSignature)]))
        let (stepUp, refused) = try await api.postRaw("/v1/notifications/\(sent.notificationUUID)/actions",
                                                      UpdateNotificationRequest(action: "approve"), bearer: session)
        #expect(stepUp == 403 && refused.error.code == "device_not_confirmed", "\(refused)")
        // Nor unbinds the user's real device, nor changes the password.
        let (revoke, revokeError) = try await api.postRaw("/v1/devices/\(fixture.deviceID)/revoke",
                                                          DeviceRevocationRequest(password: IdentityFlowTests.password), bearer: session)
        #expect(revoke == 403 && revokeError.error.code == "device_not_confirmed")
        let (change, changeError) = try await api.postRaw("/v1/password/change", ChangePasswordRequest(
            userID: fixture.userID, oldPassword: IdentityFlowTests.password, newPassword: "a brand new secret"), bearer: session)
        #expect(change == 403 && changeError.error.code == "device_not_confirmed")
        #expect(try await fixture.live.admin().devices(fixture.userID).allSatisfy { $0.revokedAt == nil })

        // Its sign-in claims the password's level, and a request for more is refused.
        let device = BoundSignInAttackTests.RawDevice(api: api, userID: fixture.userID, deviceID: tabletID, key: key,
                                                      clientID: fixture.clientID, sessionToken: session)
        let challenge = try await device.begin()
        let (signedIn, _) = try await device.answer(challenge, try device.assertion(challenge))
        #expect(signedIn == 200)
        let audit = try fixture.live.store.auditEvents(afterSequence: 0, limit: 100, userID: fixture.userID, transactionID: nil)
        #expect(audit.contains { $0.kind == AuditKind.oidcSignIn.rawValue && $0.details["acr"] == Assurance.of(.password).acr })

        // A registration code presented with the same key confirms the device.
        let link = try await rp.issueRegistrationCode(fixture.userID)
        let confirmed: AuthenticationResult = try await api.post("/v1/devices/register", RegisterDeviceRequest(
            userID: fixture.userID, registrationCode: link.registrationCode, deviceName: "attacker",
            devicePublicKey: PublicKeyJWK(x: Base64URL.encode(key.publicKey.x), y: Base64URL.encode(key.publicKey.y))))
        #expect(confirmed.deviceID == tabletID)
        #expect(try await fixture.live.admin().devices(fixture.userID).first { $0.deviceID == tabletID }?.boundBy == "registration_code")
        let again = try await api.postRaw("/v1/notifications/\(sent.notificationUUID)/actions", UpdateNotificationRequest(action: "approve"),
                                          bearer: try #require(confirmed.session?.token))
        #expect(again.0 == 200)
    }

    /// Wrong passwords from every address together close password registration for that user
    /// only: the bound devices go on, and a registration code still binds (and reopens it).
    @Test func wrongPasswordsClosePasswordRegistrationForTheUserNotTheirDevices() async throws {
        let fixture = try await SignInFixture.make(.sqlite) {
            $0.identity.passwordRegistration = true
            $0.identity.passwordRegistrationFailures = 3
        }
        defer { fixture.live.stop() }
        let stranger = try fixture.live.client()
        for _ in 0..<3 {
            let result = try await stranger.registerDevice(userID: fixture.userID, password: "a guessed password", deviceName: "x")
            #expect(result.statusCode == 401)
        }
        await expectError("password_registration_closed") {
            try await fixture.live.client().registerDevice(userID: fixture.userID, password: IdentityFlowTests.password, deviceName: "mine")
        }
        _ = try await signedInPhone(fixture)
        let link = try await fixture.live.admin().issueRegistrationCode(fixture.userID)
        let bound = try await fixture.live.client().registerDevice(userID: fixture.userID, registrationCode: link.registrationCode, deviceName: "laptop")
        #expect(bound.statusCode == 100)
        let reopened = try await fixture.live.client().registerDevice(userID: fixture.userID, password: IdentityFlowTests.password, deviceName: "tablet")
        #expect(reopened.statusCode == 100)

        // An id that names no user closes the same way: the closing tells no one who exists.
        for _ in 0..<3 {
            #expect(try await stranger.registerDevice(userID: "nobody-here", password: "a guessed password", deviceName: "x").statusCode == 401)
        }
        await expectError("password_registration_closed") {
            try await stranger.registerDevice(userID: "nobody-here", password: "a guessed password", deviceName: "x")
        }
    }

    /// Parallel guesses are counted before they are judged: of ten sent at once with a limit of
    /// three, three are judged and the rest find registration closed.
    @Test func parallelGuessesJudgeNoMoreThanTheLimit() async throws {
        let fixture = try await Self.passwordRegistration(.sqlite, failures: 3)
        defer { fixture.live.stop() }
        let codes = try await Self.registerAtOnce(fixture, passwords: Array(repeating: "a guessed password", count: 10))
        #expect(codes.filter { $0 == "401" }.count == 3, "\(codes)")
        #expect(codes.filter { $0 == "password_registration_closed" }.count == 7, "\(codes)")
        // A flood at the closed registration marks nothing in flight, so it waits for nothing:
        // every one is answered closed (not 429 after the wait for tries in flight).
        let flood = try await Self.registerAtOnce(fixture, passwords: Array(repeating: "another guess", count: 10))
        #expect(flood == Array(repeating: "password_registration_closed", count: 10), "\(flood)")
    }

    /// The count's last slot held by tries still being judged is not "closed": a right password
    /// waits for them, and each right one gives its count back. One wrong guess among three
    /// right passwords sent at once with a limit of two: the three bind, the guess is 401.
    @Test(arguments: StoreKind.available)
    func rightPasswordsAreNeverRefusedAsClosedWhileOthersAreInFlight(_ kind: StoreKind) async throws {
        let fixture = try await Self.passwordRegistration(kind, failures: 2)
        defer { fixture.live.stop() }
        let right = IdentityFlowTests.password
        let codes = try await Self.registerAtOnce(fixture, passwords: ["a guessed password", right, right, right])
        #expect(codes == ["401", "100", "100", "100"], "\(codes)")
        #expect(try await fixture.live.admin().devices(fixture.userID).count == 4)
    }

    /// A server with password registration on, `failures` tries per user before it closes, and
    /// the limits per address out of the way.
    static func passwordRegistration(_ kind: StoreKind, failures: Int64) async throws -> SignInFixture {
        try await SignInFixture.make(kind) {
            $0.identity.passwordRegistration = true
            $0.identity.passwordRegistrationFailures = failures
            $0.identity.deviceProofAttempts = 100
            $0.identity.clientProofAttempts = 1000
        }
    }

    /// Each password sent at once by a new device of its own: the status codes, or the error
    /// codes, in the order of `passwords`.
    static func registerAtOnce(_ fixture: SignInFixture, passwords: [String]) async throws -> [String] {
        try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for (index, password) in passwords.enumerated() {
                let newDevice = try fixture.live.client()
                group.addTask {
                    do {
                        let result = try await newDevice.registerDevice(userID: fixture.userID, password: password, deviceName: "device \(index)")
                        return (index, String(result.statusCode.rawValue))
                    } catch let error as CustosError {
                        return (index, error.code)
                    }
                }
            }
            return try await group.reduce(into: Array(repeating: "", count: passwords.count)) { $0[$1.0] = $1.1 }
        }
    }

    /// An expired password alone binds nothing and gives no change token: else a phished
    /// expired password would replace itself and lock the user out of their devices.
    @Test func anExpiredPasswordAloneCannotReplaceItself() async throws {
        let fixture = try await SignInFixture.make(.sqlite) { $0.identity.passwordRegistration = true }
        defer { fixture.live.stop() }
        fixture.live.clock.advance(by: try #require(IdentityPolicy().passwordMaximumAge) + 60)
        let stranger = try fixture.live.client()
        let result = try await stranger.registerDevice(userID: fixture.userID, password: IdentityFlowTests.password, deviceName: "x")
        #expect(result.statusCode == 110 && result.passwordChangeToken == nil && result.deviceID == nil)
        #expect(try await fixture.live.admin().devices(fixture.userID).count == 1)
    }

    /// Every binding is told to the user's other devices: who, how, from where.
    @Test func theOtherDevicesAreToldOfEveryBinding() async throws {
        let fixture = try await SignInFixture.make(.sqlite)
        defer { fixture.live.stop() }
        let phone = try await signedInPhone(fixture)
        let link = try await fixture.live.admin().issueRegistrationCode(fixture.userID)
        let laptop = try fixture.live.client()
        let laptopID = try #require(try await laptop.registerDevice(userID: fixture.userID, registrationCode: link.registrationCode,
                                                                    deviceName: "work laptop").deviceID)
        let notice = try await pending(phone, subject: "device was bound")
        #expect(notice.message.contains("work laptop") && notice.message.contains("registration code") && notice.message.contains("127.0.0.1"))
        #expect(notice.actions.map(\.action) == ["ok", DeviceApprovalService.unbindAction(laptopID)])
        #expect(notice.actions.last?.authLevel == AuthLevel.deviceSignature)
        // The new device cannot answer (and so hide) the notice of its own binding; the phone can.
        await expectError("notice_about_this_device") { try await laptop.updateNotification(notice, action: "ok") }
        #expect(try await phone.updateNotification(notice, action: "ok").statusCode == 100)
        #expect(try await laptop.getNotifications().notifications.isEmpty)
    }
}
