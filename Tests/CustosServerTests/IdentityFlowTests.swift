import CustosAPI
import CustosCore
import CustosCrypto
import CustosSDK
import CustosTestSupport
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Identity end to end: the real server on a loopback port, driven through the SDK, against
/// SQLite and (where available) PostgreSQL.
@Suite struct IdentityFlowTests {
    static let password = "correct horse battery"

    /// Creates a user through the relying-party API and activates a device through the SDK.
    static func activatedUser(_ live: LiveServer, _ userID: String = "user-\(UUID().uuidString.prefix(8))") async throws
        -> (client: CustosClient, userID: String, deviceID: String) {
        let created = try await live.admin().createUser(userID)
        let client = try live.client()
        let result = try await client.activate(userID: userID, activationCode: created.activation.activationCode,
                                               password: password, deviceName: "test phone")
        #expect(result.statusCode == 100)
        return (client, userID, try #require(result.deviceID))
    }

    @Test(arguments: StoreKind.available)
    func activateLoginLockoutUnlock(kind: StoreKind) async throws {
        let live = try LiveServer.make(kind)
        defer { live.stop() }
        let (client, userID, deviceID) = try await Self.activatedUser(live)
        #expect(client.session.sessionToken?.hasPrefix("cs_") == true)

        let ok = try await client.login(userID: userID, deviceID: deviceID, password: Self.password)
        #expect(ok.statusCode == 100)
        #expect(ok.attemptsLeft == 5)
        #expect(ok.session?.token != nil)

        for expectedLeft in [4, 3, 2, 1] {
            let wrong = try await client.login(userID: userID, deviceID: deviceID, password: "wrong password!")
            #expect(wrong.statusCode == 401)
            #expect(wrong.attemptsLeft == expectedLeft)
            #expect(wrong.session == nil)
        }
        let exhausted = try await client.login(userID: userID, deviceID: deviceID, password: "wrong password!")
        #expect(exhausted.statusCode == 153)
        #expect(exhausted.attemptsLeft == 0)
        let stillLocked = try await client.login(userID: userID, deviceID: deviceID, password: Self.password)
        #expect(stillLocked.statusCode == 153)
        #expect(try await live.admin().user(userID).locked)

        let unlocked = try await live.admin().unlockUser(userID)
        #expect(unlocked.locked == false)
        let again = try await client.login(userID: userID, deviceID: deviceID, password: Self.password)
        #expect(again.statusCode == 100)
        #expect(again.attemptsLeft == 5)
    }

    @Test(arguments: StoreKind.available)
    func lockExpiresAfterItsPeriod(kind: StoreKind) async throws {
        let live = try LiveServer.make(kind)
        defer { live.stop() }
        let (client, userID, deviceID) = try await Self.activatedUser(live)
        for _ in 0..<5 { _ = try await client.login(userID: userID, deviceID: deviceID, password: "wrong password!") }
        #expect(try await client.login(userID: userID, deviceID: deviceID, password: Self.password).statusCode == 153)
        live.clock.advance(by: 301)
        #expect(try await client.login(userID: userID, deviceID: deviceID, password: Self.password).statusCode == 100)
    }

    @Test(arguments: StoreKind.available)
    func expiredPasswordMustBeChanged(kind: StoreKind) async throws {
        let live = try LiveServer.make(kind)
        defer { live.stop() }
        let (client, userID, deviceID) = try await Self.activatedUser(live)
        live.clock.advance(by: 91 * 86400)
        let expired = try await client.login(userID: userID, deviceID: deviceID, password: Self.password)
        #expect(expired.statusCode == 110)
        #expect(expired.session == nil)
        let token = try #require(expired.passwordChangeToken)

        let changed = try await client.changePassword(userID: userID, oldPassword: Self.password, newPassword: "a brand new secret",
                                                      passwordChangeToken: token)
        #expect(changed.statusCode == 100)
        // The change token is single-use.
        await expectError("invalid_session") {
            try await client.changePassword(userID: userID, oldPassword: "a brand new secret", newPassword: "yet another secret",
                                            passwordChangeToken: token)
        }
        #expect(try await client.login(userID: userID, deviceID: deviceID, password: "a brand new secret").statusCode == 100)
        #expect(try await client.login(userID: userID, deviceID: deviceID, password: Self.password).statusCode == 401)
    }

    @Test(arguments: StoreKind.available)
    func passwordChangeInASessionAndLogout(kind: StoreKind) async throws {
        let live = try LiveServer.make(kind)
        defer { live.stop() }
        let (client, userID, deviceID) = try await Self.activatedUser(live)
        let changedEvent = SDKContractTests.FirstEvent(client, .onPasswordChanged)
        let changed = try await client.changePassword(userID: userID, oldPassword: Self.password, newPassword: "another good secret")
        #expect(changed.statusCode == 100)
        let event = try await changedEvent.value
        #expect(event.error == nil && event.response == changed && event.userID == userID)
        let wrongOld = try await client.changePassword(userID: userID, oldPassword: "not the password", newPassword: "whatever else 1")
        #expect(wrongOld.statusCode == 401)
        #expect(wrongOld.attemptsLeft == 4)
        #expect(try await client.sessions().count == 1)
        try await client.logout()
        #expect(client.session.sessionToken == nil)
        #expect(try await client.login(userID: userID, deviceID: deviceID, password: "another good secret").statusCode == 100)
    }

    /// Twenty wrong passwords at once, from the user's own device: exactly the limit is judged,
    /// one lock is recorded, and a right password sent after the burst is refused (153).
    @Test(arguments: StoreKind.available)
    func parallelWrongPasswordsCountExactlyTheLimit(kind: StoreKind) async throws {
        let live = try LiveServer.make(kind)
        defer { live.stop() }
        let (client, userID, deviceID) = try await Self.activatedUser(live)
        let answers = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<20 {
                group.addTask { (try? await client.login(userID: userID, deviceID: deviceID, password: "wrong password!"))?.statusCode.rawValue ?? 0 }
            }
            return await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(answers.filter { $0 == 401 }.count == 4, "\(answers.sorted())")
        #expect(answers.filter { $0 == 153 }.count == 16, "\(answers.sorted())")
        #expect(try await client.login(userID: userID, deviceID: deviceID, password: Self.password).statusCode == 153)
        let locks = try LiveServer.audit(live.store).list(userID: userID, transactionID: nil).filter { $0.kind == AuditKind.lockout.rawValue }
        #expect(locks.count == 1)
        #expect(try live.store.user(id: userID)?.lockoutCount == 1)
        // The lock runs out: the attempts are back.
        live.clock.advance(by: 301)
        #expect(try await client.login(userID: userID, deviceID: deviceID, password: Self.password).statusCode == 100)
    }

    /// The same burst split over two nodes sharing one database: still exactly the limit is
    /// judged and one lock recorded; a right password sent after the burst is refused.
    @Test(arguments: StoreKind.available)
    func parallelWrongPasswordsOnTwoNodesCountExactlyTheLimit(kind: StoreKind) async throws {
        let store = try LiveServer.store(kind)
        let first = try LiveServer(store: store), second = try LiveServer(store: store)
        defer { first.server.stop(); second.stop() }
        let keys = FileManager.default.temporaryDirectory.appendingPathComponent("custos-keys-\(UUID().uuidString)")
        let created = try await first.admin().createUser("two-\(UUID().uuidString.prefix(6))")
        let userID = created.user.userID
        let one = try first.client(keys: keys)
        let activated = try await one.activate(userID: userID, activationCode: created.activation.activationCode, password: Self.password,
                                               deviceName: "phone")
        let deviceID = try #require(activated.deviceID)
        // The same device key, filed for the second node's address too.
        let otherKeys = keys.appendingPathExtension("second")
        _ = try FileDeviceKeyStore(directory: otherKeys).createKey(for: second.baseURL.absoluteString + "|" + userID)
        let keyFile = try #require(try FileManager.default.contentsOfDirectory(atPath: keys.path).first { $0.hasSuffix(".pem") })
        let copy = try #require(try FileManager.default.contentsOfDirectory(atPath: otherKeys.path).first { $0.hasSuffix(".pem") })
        let destination = otherKeys.appendingPathComponent(copy)
        try FileManager.default.removeItem(at: destination)
        try FileManager.default.copyItem(at: keys.appendingPathComponent(keyFile), to: destination)
        let two = try second.client(keys: otherKeys)
        let answers = await withTaskGroup(of: Int.self) { group in
            for index in 0..<20 {
                let client = index.isMultiple(of: 2) ? one : two
                group.addTask { (try? await client.login(userID: userID, deviceID: deviceID, password: "wrong password!"))?.statusCode.rawValue ?? 0 }
            }
            return await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(answers.filter { $0 == 401 }.count == 4, "\(answers.sorted())")
        #expect(answers.filter { $0 == 153 }.count == 16, "\(answers.sorted())")
        #expect(try await two.login(userID: userID, deviceID: deviceID, password: Self.password).statusCode == 153)
        let locks = try LiveServer.audit(store).list(userID: userID, transactionID: nil).filter { $0.kind == AuditKind.lockout.rawValue }
        #expect(locks.count == 1)
        #expect(try store.user(id: userID)?.lockoutCount == 1)
    }

    /// Twenty wrong activation codes at once: exactly the limit of tries is judged.
    @Test(arguments: StoreKind.available)
    func parallelWrongActivationCodesCountExactlyTheLimit(kind: StoreKind) async throws {
        let live = try LiveServer.make(kind)
        defer { live.stop() }
        let created = try await live.admin().createUser("guess-\(UUID().uuidString.prefix(6))")
        let clients = try (0..<20).map { _ in try live.client() }
        let codes = await withTaskGroup(of: String.self) { group in
            for client in clients {
                group.addTask {
                    do {
                        _ = try await client.activate(userID: created.user.userID, activationCode: "WRONG-CODE-0000", password: Self.password,
                                                      deviceName: "guesser")
                        return "activated"
                    } catch let error as CustosError {
                        return error.code
                    } catch {
                        return "\(error)"
                    }
                }
            }
            return await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(codes.filter { $0 == "invalid_activation_code" }.count == 5, "\(codes.sorted())")
        #expect(codes.filter { $0 == "activation_locked" }.count == 15, "\(codes.sorted())")
    }

    /// A new password ends every other session of the user (a thief's included); the one that
    /// changed it stays.
    @Test(arguments: StoreKind.available)
    func passwordChangeEndsTheOtherSessions(kind: StoreKind) async throws {
        let live = try LiveServer.make(kind)
        defer { live.stop() }
        let (client, userID, deviceID) = try await Self.activatedUser(live)
        let stolen = try #require(client.session.sessionToken)
        #expect(try await client.login(userID: userID, deviceID: deviceID, password: Self.password).statusCode == 100)
        #expect(try live.store.sessions(userID: userID).count == 2)
        #expect(try await client.changePassword(userID: userID, oldPassword: Self.password, newPassword: "a new long secret").statusCode == 100)
        let (status, _) = try await RawAPI(base: live.baseURL).getStatus("/v1/sessions", bearer: stolen)
        #expect(status == 401)
        #expect(try await client.sessions().count == 1)
    }

    /// Housekeeping deletes sessions past their lifetime or idle timeout.
    @Test(arguments: StoreKind.available)
    func expiredSessionsAreSwept(kind: StoreKind) async throws {
        let live = try LiveServer.make(kind)
        defer { live.stop() }
        let (_, userID, _) = try await Self.activatedUser(live)
        #expect(try live.identity.purgeExpiredSessions() == 0)
        live.clock.advance(by: 31 * 60)
        #expect(try live.identity.purgeExpiredSessions() == 1)
        #expect(try live.store.sessions(userID: userID).isEmpty)
    }

    @Test(arguments: StoreKind.available)
    func reusedActivationCodeIsRejected(kind: StoreKind) async throws {
        let live = try LiveServer.make(kind)
        defer { live.stop() }
        let created = try await live.admin().createUser("reuse-\(UUID().uuidString.prefix(6))")
        let code = created.activation.activationCode
        let first = try await live.client().activate(userID: created.user.userID, activationCode: code, password: Self.password, deviceName: "a")
        #expect(first.statusCode == 100)
        await expectError("invalid_activation_code") {
            try await live.client().activate(userID: created.user.userID, activationCode: code, password: Self.password, deviceName: "b")
        }
        do {
            _ = try await live.client().activate(userID: created.user.userID, activationCode: code, password: Self.password, deviceName: "b")
        } catch let error as CustosError {
            #expect(error.code == "invalid_activation_code")
            #expect(error.httpStatus == 401)
        }
    }

    /// Activation is one transaction: a device key already bound to someone undoes it all
    /// (no burned code, no password set), and the same code then works with a key of its own.
    @Test(arguments: StoreKind.available)
    func activationWithAKeyInUseBurnsNothing(kind: StoreKind) async throws {
        let live = try LiveServer.make(kind)
        defer { live.stop() }
        let (_, _, deviceID) = try await Self.activatedUser(live)
        let boundKey = try #require(try live.store.device(id: deviceID))
        let key = try JSONDecoder().decode(PublicKeyJWK.self, from: Data(boundKey.publicKeyJWK.utf8))
        let created = try await live.admin().createUser("key-\(UUID().uuidString.prefix(6))")
        let code = created.activation.activationCode
        let (status, error) = try await RawAPI(base: live.baseURL).postRaw(
            "/v1/activate", ActivateRequest(userID: created.user.userID, activationCode: code, password: Self.password, deviceName: "copy",
                                            devicePublicKey: key))
        #expect(status == 409 && error.error.code == "device_key_in_use", "\(status) \(error)")
        #expect(try live.store.user(id: created.user.userID)?.passwordHash == nil)
        let result = try await live.client().activate(userID: created.user.userID, activationCode: code, password: Self.password,
                                                      deviceName: "own")
        #expect(result.statusCode == 100)
    }

    @Test(arguments: StoreKind.available)
    func oneCodeTwentyParallelActivationsExactlyOneWins(kind: StoreKind) async throws {
        let live = try LiveServer.make(kind)
        defer { live.stop() }
        let created = try await live.admin().createUser("race-\(UUID().uuidString.prefix(6))")
        let clients = try (0..<20).map { _ in try live.client() }
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for client in clients {
                group.addTask {
                    (try? await client.activate(userID: created.user.userID, activationCode: created.activation.activationCode,
                                                password: Self.password, deviceName: "racer")) != nil
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 }.count == 1)
        #expect(try await live.admin().devices(created.user.userID).count == 1)
    }

    @Test(arguments: StoreKind.available)
    func replayedLoginNonceIsRejected(kind: StoreKind) async throws {
        let live = try LiveServer.make(kind)
        defer { live.stop() }
        let keys = FileManager.default.temporaryDirectory.appendingPathComponent("custos-keys-\(UUID().uuidString)")
        let created = try await live.admin().createUser("replay-\(UUID().uuidString.prefix(6))")
        let userID = created.user.userID
        let activated = try await live.client(keys: keys).activate(userID: userID, activationCode: created.activation.activationCode,
                                                                  password: Self.password, deviceName: "a")
        let deviceID = try #require(activated.deviceID)
        let key = try #require(try FileDeviceKeyStore(directory: keys).key(for: live.baseURL.absoluteString + "|" + userID))

        let http = RawAPI(base: live.baseURL)
        let challenge: LoginChallenge = try await http.post("/v1/login/challenge", LoginChallengeRequest(userID: userID, deviceID: deviceID))
        let signature = try key.sign(Data(challenge.nonce.utf8)).base64URLEncodedString
        let request = LoginRequest(userID: userID, deviceID: deviceID, nonce: challenge.nonce, signature: signature, password: Self.password)
        let first: AuthenticationResult = try await http.post("/v1/login", request)
        #expect(first.statusCode == 100)
        let (status, body) = try await http.postRaw("/v1/login", request)
        #expect(status == 401)
        #expect(body.error.code == "invalid_nonce")
    }

    @Test(arguments: StoreKind.available)
    func revokedDeviceIsRejected(kind: StoreKind) async throws {
        let live = try LiveServer.make(kind)
        defer { live.stop() }
        let (client, userID, deviceID) = try await Self.activatedUser(live)
        try await live.admin().revokeDevice(userID: userID, deviceID: deviceID)
        #expect(try live.store.sessions(userID: userID).isEmpty)
        let result = try await client.login(userID: userID, deviceID: deviceID, password: Self.password)
        #expect(result.statusCode == 401)
        #expect(result.session == nil)
        // Its session ended too.
        await expectError("invalid_session") { try await client.sessions() }
        #expect(try await live.admin().devices(userID).first?.revokedAt != nil)
    }

    @Test(arguments: StoreKind.available)
    func unknownUserDisabledUserAndWrongPasswordAnswerAlike(kind: StoreKind) async throws {
        let live = try LiveServer.make(kind)
        defer { live.stop() }
        let (client, userID, deviceID) = try await Self.activatedUser(live)
        let (otherClient, otherID, otherDevice) = try await Self.activatedUser(live)
        _ = try await live.admin().disableUser(otherID)

        let wrongPassword = try await client.login(userID: userID, deviceID: deviceID, password: "wrong password!")
        // An unknown user, tried the way an attacker would: a real device's id, a fresh nonce.
        let http = RawAPI(base: live.baseURL)
        let nobody = "nobody-\(UUID().uuidString.prefix(6))"
        let challenge: LoginChallenge = try await http.post("/v1/login/challenge", LoginChallengeRequest(userID: nobody, deviceID: deviceID))
        let unknownUser: AuthenticationResult = try await http.post("/v1/login", LoginRequest(
            userID: nobody, deviceID: deviceID, nonce: challenge.nonce, signature: Data(repeating: 1, count: 64).base64URLEncodedString, password: Self.password))
        let disabledUser = try await otherClient.login(userID: otherID, deviceID: otherDevice, password: Self.password)
        for result in [wrongPassword, unknownUser, disabledUser] {
            #expect(result.statusCode == 401)
            #expect(result.statusMessage == wrongPassword.statusMessage)
            #expect(result.attemptsLeft == 4)
            #expect(result.session == nil && result.deviceID == nil && result.passwordChangeToken == nil)
        }
    }

    /// An attacker who knows a user id (and even one of its device ids) but holds no device key:
    /// bad signatures are throttled per device id and client address, never counted against the
    /// user, who is not locked and keeps a working session; an unknown user answers alike.
    @Test(arguments: StoreKind.available)
    func badSignaturesThrottleTheClientNotTheUser(kind: StoreKind) async throws {
        let live = try LiveServer.make(kind)
        defer { live.stop() }
        let (client, userID, deviceID) = try await Self.activatedUser(live)
        let http = RawAPI(base: live.baseURL)
        let nobody = "nobody-\(UUID().uuidString.prefix(6))"
        func forged(_ user: String, device: String) async throws -> (Int, Data) {
            let challenge: LoginChallenge = try await http.post("/v1/login/challenge", LoginChallengeRequest(userID: user, deviceID: device))
            return try await http.postData("/v1/login", LoginRequest(
                userID: user, deviceID: device, nonce: challenge.nonce, signature: Data(repeating: 1, count: 64).base64URLEncodedString,
                password: Self.password))
        }
        for expectedLeft in [4, 3, 2, 1, 0] {
            for user in [userID, nobody] {
                let (status, data) = try await forged(user, device: "made-up-\(user)")
                #expect(status == 200)
                let answer = try WireJSON.decoder().decode(AuthenticationResult.self, from: data)
                #expect(answer.statusCode == 401 && answer.attemptsLeft == expectedLeft && answer.session == nil)
            }
        }
        for user in [userID, nobody] {
            let (status, data) = try await forged(user, device: "made-up-\(user)")
            #expect(status == 429)
            #expect(try JSONDecoder().decode(ErrorEnvelope.self, from: data).error.code == "too_many_attempts")
        }
        // The real device's id, from the attacker's address, is throttled there too: nothing counted against the user.
        for _ in 0..<5 { _ = try await forged(userID, device: deviceID) }
        #expect(try await !live.admin().user(userID).locked)
        #expect(try await client.sessions().count == 1)
        #expect(try live.identity.attemptsLeft(userID: userID, factor: .credentials) == 5)
        // (The test's device and the attacker share 127.0.0.1: the device's own proof still passes.)
        #expect(try await client.login(userID: userID, deviceID: deviceID, password: Self.password).statusCode == 100)

        live.clock.advance(by: 301)
        let (after, data) = try await forged(nobody, device: "made-up-\(nobody)")
        let afterAnswer = try WireJSON.decoder().decode(AuthenticationResult.self, from: data)
        #expect(after == 200 && afterAnswer.attemptsLeft == 4)
    }

    @Test(arguments: StoreKind.available)
    func deletingAUserDeletesItsDevicesAndSessions(kind: StoreKind) async throws {
        let live = try LiveServer.make(kind)
        defer { live.stop() }
        let (client, userID, _) = try await Self.activatedUser(live)
        let admin = try live.admin()
        try await admin.deleteUser(userID)
        await expectError("user_not_found") { try await admin.user(userID) }
        await expectError("invalid_session") { try await client.sessions() }
        #expect(try live.store.devices(userID: userID).isEmpty)
        #expect(try LiveServer.audit(live.store).list(userID: userID, transactionID: nil).map(\.kind).last == AuditKind.userDeleted.rawValue)
    }
}

/// The relying-party API's own rules.
@Suite struct AdminAPITests {
    @Test func keysAreRequiredAndScoped() async throws {
        let live = try LiveServer.sqlite()
        defer { live.stop() }
        let http = RawAPI(base: live.baseURL)
        let (status, body) = try await http.postRaw("/v1/users", CreateUserRequest(userID: "x"))
        #expect(status == 401)
        #expect(body.error.code == "invalid_api_key")

        let (_, rpSecret) = try live.apiKeys.create(scope: .rp, label: "rp", actor: "test")
        let (forbidden, forbiddenBody) = try await http.postRaw("/v1/admin/api-keys", CreateAPIKeyRequest(scope: "rp", label: "x"), bearer: rpSecret)
        #expect(forbidden == 403)
        #expect(forbiddenBody.error.code == "insufficient_scope")

        let (adminKey, adminSecret) = try live.apiKeys.create(scope: .admin, label: "root", actor: "test")
        let created: APIKeyInfo = try await http.post("/v1/admin/api-keys", CreateAPIKeyRequest(scope: "rp", label: "backend"), bearer: adminSecret)
        #expect(created.key?.hasPrefix("ck_") == true)
        try live.apiKeys.revoke(id: adminKey.id, actor: "test")
        let (revoked, _) = try await http.postRaw("/v1/users", CreateUserRequest(userID: "x"), bearer: adminSecret)
        #expect(revoked == 401)
    }

    @Test func usersArePagedAndDuplicatesRefused() async throws {
        let live = try LiveServer.sqlite()
        defer { live.stop() }
        let admin = try live.admin()
        for id in ["u1", "u2", "u3", "u4", "u5"] { _ = try await admin.createUser(id) }
        await expectError("user_exists") { try await admin.createUser("u3") }
        let first = try await admin.users(limit: 2)
        #expect(first.users.map(\.userID) == ["u1", "u2"])
        let second = try await admin.users(after: first.nextAfter, limit: 2)
        #expect(second.users.map(\.userID) == ["u3", "u4"])
        let last = try await admin.users(after: second.nextAfter, limit: 2)
        #expect(last.users.map(\.userID) == ["u5"])
        #expect(last.nextAfter == nil)
    }

    @Test func badInputGetsClearErrors() async throws {
        let live = try LiveServer.sqlite()
        defer { live.stop() }
        let (_, secret) = try live.apiKeys.create(scope: .rp, label: "rp", actor: "test")
        let http = RawAPI(base: live.baseURL)
        let cases: [(String, String, Int, String)] = [
            ("/v1/users", #"{}"#, 422, "missing_field"),
            ("/v1/users", #"{"user_id": 7}"#, 422, "wrong_type"),
            ("/v1/users", #"{"user_id": "has space"}"#, 422, "invalid_field"),
            ("/v1/users", #"{"user_id": "\#(String(repeating: "x", count: 5000))"}"#, 422, "invalid_field"),
            ("/v1/users", #"{"user_id": "#, 400, "malformed_json"),
            ("/v1/activate", #"{"user_id":"a","activation_code":"x","password":"long enough pw","device_name":"d","device_public_key":{"kty":"EC","crv":"P-384","x":"AA","y":"AA"}}"#, 422, "invalid_device_key"),
            ("/v1/activate", #"{"user_id":"a","activation_code":"x","password":"long enough pw","device_name":"d","device_public_key":{"kty":"EC","crv":"P-256","x":"AAAA","y":"AAAA"}}"#, 422, "invalid_device_key"),
            ("/v1/activate", #"{"user_id":"a","activation_code":"x","password":"short","device_name":"d","device_public_key":{"kty":"EC","crv":"P-256","x":"AAAA","y":"AAAA"}}"#, 422, "password_policy"),
            ("/v1/login", #"{"user_id":"a","device_id":"d1","nonce":"n","signature":"AAAA"}"#, 422, "invalid_field"),
            ("/v1/login/challenge", #"{"user_id":"a"}"#, 422, "missing_field"),
        ]
        for (path, body, status, code) in cases {
            let (gotStatus, envelope) = try await http.postRaw(path, raw: Data(body.utf8), bearer: secret)
            #expect(gotStatus == status, "\(path) \(body.prefix(80))")
            #expect(envelope.error.code == code, "\(path) \(body.prefix(80))")
        }
    }
}

/// An answer that is not the expected type, with what came instead.
struct UnexpectedAnswer: Error, CustomStringConvertible {
    let path: String
    let status: Int
    let body: String
    var description: String { "POST \(path) answered \(status): \(body)" }
}

/// Direct HTTP calls, for what the SDK deliberately does not do (replays, hostile bodies).
struct RawAPI {
    let base: URL

    func post<Body: Encodable, T: Decodable>(_ path: String, _ body: Body, bearer: String? = nil) async throws -> T {
        let (data, status) = try await send(path, body: try WireJSON.encoder().encode(body), bearer: bearer)
        do {
            return try WireJSON.decoder().decode(T.self, from: data)
        } catch {
            throw UnexpectedAnswer(path: path, status: status, body: String(decoding: data.prefix(300), as: UTF8.self))
        }
    }

    func postRaw<Body: Encodable>(_ path: String, _ body: Body, bearer: String? = nil) async throws -> (Int, ErrorEnvelope) {
        try await postRaw(path, raw: try WireJSON.encoder().encode(body), bearer: bearer)
    }

    func postRaw(_ path: String, raw: Data, bearer: String? = nil) async throws -> (Int, ErrorEnvelope) {
        let (data, status) = try await send(path, body: raw, bearer: bearer)
        let envelope = (try? JSONDecoder().decode(ErrorEnvelope.self, from: data)) ?? ErrorEnvelope(code: "none", message: String(decoding: data, as: UTF8.self))
        return (status, envelope)
    }

    func get<T: Decodable>(_ path: String, bearer: String? = nil) async throws -> T {
        let (data, status) = try await send(path, method: "GET", body: nil, bearer: bearer)
        do {
            return try WireJSON.decoder().decode(T.self, from: data)
        } catch {
            throw UnexpectedAnswer(path: path, status: status, body: String(decoding: data.prefix(300), as: UTF8.self))
        }
    }

    func getData(_ path: String, bearer: String? = nil) async throws -> Data {
        try await send(path, method: "GET", body: nil, bearer: bearer).0
    }

    /// Any method with a JSON body, decoding the answer.
    func request<Body: Encodable, T: Decodable>(_ path: String, method: String, _ body: Body, bearer: String? = nil) async throws -> T {
        let (data, status) = try await send(path, method: method, body: try WireJSON.encoder().encode(body), bearer: bearer)
        do {
            return try WireJSON.decoder().decode(T.self, from: data)
        } catch {
            throw UnexpectedAnswer(path: path, status: status, body: String(decoding: data.prefix(300), as: UTF8.self))
        }
    }

    func deleteStatus(_ path: String, bearer: String? = nil) async throws -> Int {
        try await send(path, method: "DELETE", body: nil, bearer: bearer).1
    }

    func getStatus(_ path: String, bearer: String? = nil) async throws -> (Int, Data) {
        let (data, status) = try await send(path, method: "GET", body: nil, bearer: bearer)
        return (status, data)
    }

    /// The status and raw body, whatever the answer.
    func postData<Body: Encodable>(_ path: String, _ body: Body, bearer: String? = nil) async throws -> (Int, Data) {
        let (data, status) = try await send(path, body: try WireJSON.encoder().encode(body), bearer: bearer)
        return (status, data)
    }

    private func send(_ path: String, method: String = "POST", body: Data?, bearer: String?) async throws -> (Data, Int) {
        var request = URLRequest(url: URL(string: base.absoluteString + path)!, timeoutInterval: TestEnvironment.requestTimeout)
        request.httpMethod = method
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await URLSession.shared.data(for: request)
        return (data, (response as? HTTPURLResponse)?.statusCode ?? 0)
    }
}

/// A decoded NUL once cut the path short: `DELETE /v1/users/victim%00/devices/abc` deleted the
/// user `victim`, and `GET /v1/users/alice%00zzz/devices` returned alice's devices.
@Suite struct PathInjectionTests {
    @Test(arguments: StoreKind.available)
    func nulInThePathChangesAndReturnsNothing(kind: StoreKind) async throws {
        let live = try LiveServer.make(kind)
        defer { live.stop() }
        let (_, userID, _) = try await IdentityFlowTests.activatedUser(live)
        let (_, rpKey) = try live.apiKeys.create(scope: .rp, label: "rp", actor: "test")
        for (method, path) in [("DELETE", "/v1/users/\(userID)%00/devices/abc"), ("GET", "/v1/users/\(userID)%00zzz/devices")] {
            var request = URLRequest(url: URL(string: live.baseURL.absoluteString + path)!, timeoutInterval: TestEnvironment.requestTimeout)
            request.httpMethod = method
            request.setValue("Bearer \(rpKey)", forHTTPHeaderField: "Authorization")
            let (data, response) = try await URLSession.shared.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 400, "\(method) \(path)")
            #expect(try JSONDecoder().decode(ErrorEnvelope.self, from: data).error.code == "invalid_path")
        }
        #expect(try await live.admin().user(userID).userID == userID)
        #expect(try await live.admin().devices(userID).count == 1)
    }
}
