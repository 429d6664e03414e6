import CustosAPI
import CustosCore
import CustosSDK
import CustosStore
import CustosTestSupport
import Foundation
import Testing

/// Every state change is written in the same database transaction as the audit event that
/// records it: when the append fails, the change does not happen either, on both stores.
@Suite(needsFaces) struct AtomicAuditTests {
    struct Fixture {
        let live: LiveServer
        let faults: FaultyAuditStore
        let client: CustosClient
        let userID: String
        let api: RawAPI
        let bearer: String

        func events() throws -> [AuditEvent] {
            try LiveServer.audit(live.store).list(userID: userID, transactionID: nil)
        }
    }

    func fixture(_ kind: StoreKind) async throws -> Fixture {
        let store = try LiveServer.store(kind)
        let faults = FaultyAuditStore(store)
        let live = try LiveServer(store: store, idv: IDVPolicies.only(.blink), auditStore: faults)
        let (client, userID) = try await live.enrolledUser()
        return Fixture(live: live, faults: faults, client: client, userID: userID, api: RawAPI(base: live.baseURL),
                       bearer: try #require(client.session.sessionToken))
    }

    /// A verdict without its record: no verdict, no attempt used, the transaction open; once
    /// the audit works again a new challenge gets the verdict and its record.
    @Test(arguments: StoreKind.available)
    func aVerdictWhoseAuditFailsIsNotGiven(kind: StoreKind) async throws {
        let f = try await fixture(kind)
        defer { f.live.stop() }
        let frames = try FaceFixture.frames("blink_selfie", 26...37)
        let challenge = try await f.api.challenge(bearer: f.bearer)
        f.live.clock.advance(by: 2)
        let before = try f.events()

        f.faults.failAppends(true)
        let (status, error) = try await f.api.postRaw("/v1/idv/transactions/\(challenge.idvAuditTransactionID)/frames",
                                                      IDVFramesRequest(nonce: challenge.nonce, frames: uploads(frames)), bearer: f.bearer)
        #expect(status == 503 && error.error.code == "database_unavailable", "\(status) \(error)")
        #expect(try f.live.idv?.transaction(id: challenge.idvAuditTransactionID).state == .challenged)
        #expect(try f.live.identity.attemptsLeft(userID: f.userID, factor: .biometric) == 5)
        #expect(try f.events() == before)

        // The take is remembered all the same (a replay of it is refused): the retry is a new take.
        f.faults.failAppends(false)
        let retry = try await f.api.challenge(bearer: f.bearer)
        f.live.clock.advance(by: 2)
        let newTake = try FaceFixture.frames("blink_selfie", 38...50)
        let answered: IDVResultResponse = try await f.api.post("/v1/idv/transactions/\(retry.idvAuditTransactionID)/frames",
                                                               IDVFramesRequest(nonce: retry.nonce, frames: uploads(newTake)), bearer: f.bearer)
        #expect(answered.biometricResult?.displayText == "MATCHED")
        #expect(try f.events().filter { $0.kind == AuditKind.idvVerdict.rawValue && $0.transactionID == retry.idvAuditTransactionID }.count == 1)
    }

    /// A failed verdict that would lock: neither the attempt nor the lock happen without their
    /// records; a cancel, an opt-out and a new start do not either.
    @Test(arguments: StoreKind.available)
    func cancelsOptOutsStartsAndLocksWhoseAuditFailsDoNotHappen(kind: StoreKind) async throws {
        let f = try await fixture(kind)
        defer { f.live.stop() }
        let challenge = try await f.api.challenge(bearer: f.bearer)
        // The opt-out below has its proof (the relying party's grant), so only the audit refuses it.
        _ = try await f.live.admin().grantEnrollment(f.userID)
        let before = try f.events()

        f.faults.failAppends(true)
        let cancel = try await f.api.postRaw("/v1/idv/transactions/\(challenge.idvAuditTransactionID)/cancel", RawAPI.Empty(),
                                             bearer: f.bearer)
        #expect(cancel.0 == 503)
        #expect(try f.live.idv?.transaction(id: challenge.idvAuditTransactionID).state == .challenged)
        #expect(try f.live.identity.attemptsLeft(userID: f.userID, factor: .biometric) == 5)

        // A new start would supersede the open one (using its attempt): neither happens.
        let start = try await f.api.postRaw("/v1/idv/transactions", IDVInitiateRequest(workflow: 8), bearer: f.bearer)
        #expect(start.0 == 503)
        #expect(try f.live.store.openTransactions(userID: f.userID).map(\.id) == [challenge.idvAuditTransactionID])
        #expect(try f.live.identity.attemptsLeft(userID: f.userID, factor: .biometric) == 5)

        await expectError("database_unavailable") { try await f.client.optOutIDVBiometric() }
        #expect(try f.live.store.template(userID: f.userID) != nil)
        #expect(try f.events() == before)

        // Four wrong passwords are judged; the fifth would lock, but the lock cannot be
        // recorded: no lock, and the last attempt is back for the next failure.
        let deviceID = try #require(f.client.session.deviceID)
        for _ in 0..<4 {
            #expect(try await f.client.login(userID: f.userID, deviceID: deviceID, password: "wrong password!").statusCode == 401)
        }
        await expectError("database_unavailable") {
            try await f.client.login(userID: f.userID, deviceID: deviceID, password: "wrong password!")
        }
        #expect(try f.live.store.user(id: f.userID)?.lockedUntil == nil)
        #expect(try f.live.identity.attemptsLeft(userID: f.userID, factor: .credentials) == 1)

        f.faults.failAppends(false)
        #expect(try await f.client.login(userID: f.userID, deviceID: deviceID, password: "wrong password!").statusCode == 153)
        #expect(try f.live.store.user(id: f.userID)?.lockedUntil != nil)
        #expect(try f.events().filter { $0.kind == AuditKind.lockout.rawValue }.count == 1)
    }
}
