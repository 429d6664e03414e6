import CustosAPI
import CustosCore
import CustosFace
import CustosSDK
@testable import CustosStore
import Foundation
import Testing

/// Server biometrics tried as an attacker with a stolen session, a recording and a script
/// (DESIGN.md §5a): each attack is a test that must fail to get through, on both stores.
@Suite(needsFaces) struct IDVAttackTests {
    static let blinkOnly = IDVPolicies.only(.blink)

    func camera(_ live: LiveServer, _ sequence: String, _ range: ClosedRange<Int>) throws -> RecordedFrames {
        RecordedFrames(frames: try FaceFixture.frames(sequence, range), framesPerSecond: FaceFixture.framesPerSecond(sequence), clock: live.clock)
    }

    /// Re-rolling challenges until one fits a recording: every challenge that was out and then
    /// cancelled (or superseded by a new start) uses an attempt, until 153 locks the user.
    @Test(arguments: StoreKind.available)
    func startConfirmCancelRoundsUseAttemptsUntil153(kind: StoreKind) async throws {
        let live = try LiveServer(store: LiveServer.store(kind), idv: Self.blinkOnly)
        defer { live.stop() }
        let (client, userID) = try await live.enrolledUser()
        let bearer = try #require(client.session.sessionToken)
        let api = RawAPI(base: live.baseURL)

        // Declining before the challenge is free, as the seed says.
        let declined: IDVTransactionInfo = try await api.post("/v1/idv/transactions", IDVInitiateRequest(workflow: 8), bearer: bearer)
        let free: IDVResultResponse = try await api.post("/v1/idv/transactions/\(declined.idvAuditTransactionID)/cancel", RawAPI.Empty(),
                                                         bearer: bearer)
        #expect(free.statusCode == 240 && free.attempts == 0 && free.attemptsLeft == 5)

        // A start that supersedes a confirmed one uses that one's attempt (the second stays open,
        // and the first start of the loop closes it).
        _ = try await api.challenge(bearer: bearer)
        _ = try await api.challenge(bearer: bearer)
        #expect(try live.identity.attemptsLeft(userID: userID, factor: .biometric) == 4)

        var answers: [(Int, Int)] = []
        for _ in 0..<30 {
            guard let challenge = try? await api.challenge(bearer: bearer) else { break }
            let cancelled: IDVResultResponse = try await api.post("/v1/idv/transactions/\(challenge.idvAuditTransactionID)/cancel",
                                                                  RawAPI.Empty(), bearer: bearer)
            answers.append((cancelled.statusCode.rawValue, cancelled.attemptsLeft))
        }
        #expect(answers.map(\.0) == [240, 240, 153], "\(answers)")
        #expect(answers.map(\.1) == [2, 1, 0], "\(answers)")
        #expect(try await live.admin().user(userID).locked)
        #expect(await errorCode { try await client.checkIDVUserBiometricTemplateStatus() } == "invalid_session")
        let audit = try LiveServer.audit(live.store).list(userID: userID, transactionID: nil)
        #expect(audit.contains { $0.kind == AuditKind.idvCancelled.rawValue && $0.details["superseded"] == "true" })
        #expect(audit.contains { $0.kind == AuditKind.lockout.rawValue })
    }

    /// A stolen session cannot swap in another face: while a template exists, opt-in and KYC
    /// need a MATCHED authentication in the last minutes or the relying party's grant, each
    /// usable once; the replacement is audited as such.
    @Test(arguments: StoreKind.available)
    func replacingTheTemplateNeedsProof(kind: StoreKind) async throws {
        let live = try LiveServer(store: LiveServer.store(kind), idv: Self.blinkOnly)
        defer { live.stop() }
        let (client, userID) = try await live.enrolledUser()
        let document = try FaceFixture.frames("talking_obama", 1...1)[0]

        #expect(await errorCode { try await client.initiateIDVBiometricOptIn(consentVersion: "v1", frameSource: camera(live, "talking_obama", 10...22)) }
                == "template_change_needs_proof")
        #expect(await errorCode { try await client.initiateActivatedCustomerKYC(documentImage: document, consentVersion: "v1",
                                                                             frameSource: camera(live, "talking_obama", 10...22)) }
                == "template_change_needs_proof")
        #expect(try live.identity.attemptsLeft(userID: userID, factor: .biometric) == 5)

        // A match opens the window once.
        let matched = try await client.initiateIDVServerBiometricAuthentication(reason: "Before re-enrolling",
                                                                                frameSource: camera(live, "blink_selfie", 38...50))
        #expect(matched.biometricResult?.displayText == "MATCHED")
        let replaced = try await client.initiateIDVBiometricOptIn(consentVersion: "v2", frameSource: camera(live, "blink_selfie", 55...70))
        #expect(replaced.biometricResult?.displayText == "ENROLLED" && replaced.templateCreated)
        #expect(await errorCode { try await client.initiateIDVBiometricOptIn(consentVersion: "v3", frameSource: camera(live, "blink_selfie", 104...118)) }
                == "template_change_needs_proof")

        // A match whose window has passed proves nothing any more.
        let again = try await client.initiateIDVServerBiometricAuthentication(reason: "Long ago", frameSource: camera(live, "blink_selfie", 119...131))
        #expect(again.biometricResult?.displayText == "MATCHED")
        live.clock.advance(by: 301)
        #expect(await errorCode { try await client.initiateIDVBiometricOptIn(consentVersion: "v3", frameSource: camera(live, "blink_selfie", 104...118)) }
                == "template_change_needs_proof")

        // The relying party's grant, once.
        let grant = try await live.admin().grantEnrollment(userID)
        #expect(grant.userID == userID && grant.expiresAt > live.clock.now())
        let granted = try await client.initiateIDVBiometricOptIn(consentVersion: "v3", frameSource: camera(live, "blink_selfie", 104...118))
        #expect(granted.templateCreated)

        let kinds = try LiveServer.audit(live.store).list(userID: userID, transactionID: nil).map(\.kind)
        #expect(kinds.filter { $0 == AuditKind.templateReplaced.rawValue }.count == 2)
        #expect(kinds.filter { $0 == AuditKind.enrollment.rawValue }.count == 1)
        #expect(kinds.contains(AuditKind.enrollmentGranted.rawValue))
        await expectError("user_not_found") { try await live.admin().grantEnrollment("nobody-\(UUID().uuidString.prefix(6))") }
    }

    /// `--enrollment grant`: no enrolment without the relying party's grant, even after an opt-out.
    @Test(arguments: StoreKind.available)
    func enrolmentUnderGrantPolicy(kind: StoreKind) async throws {
        var policy = Self.blinkOnly
        policy.enrollment = .grant
        let live = try LiveServer(store: LiveServer.store(kind), idv: policy)
        defer { live.stop() }
        let (client, userID, _) = try await IdentityFlowTests.activatedUser(live)
        #expect(await errorCode { try await client.initiateIDVBiometricOptIn(consentVersion: "v1", frameSource: camera(live, "blink_selfie", 1...25)) }
                == "enrollment_grant_required")
        _ = try await live.admin().grantEnrollment(userID)
        let enrolled = try await client.initiateIDVBiometricOptIn(consentVersion: "v1", frameSource: camera(live, "blink_selfie", 1...25))
        #expect(enrolled.templateCreated)
        // Opt-out needs the proof a replacement needs: here, the relying party's grant.
        #expect(await errorCode { try await client.optOutIDVBiometric() } == "template_change_needs_proof")
        _ = try await live.admin().grantEnrollment(userID)
        #expect(try await client.optOutIDVBiometric().result)
        #expect(await errorCode { try await client.initiateIDVBiometricOptIn(consentVersion: "v1", frameSource: camera(live, "blink_selfie", 55...70)) }
                == "enrollment_grant_required")
    }

    /// Submissions judged side by side (a new transaction started while the last one's frames
    /// are judged): the attempt is taken before judging, so no more than the limit are judged,
    /// and one lock is recorded.
    @Test(arguments: StoreKind.available)
    func parallelSubmissionsAreJudgedNoMoreThanTheAttemptsAllow(kind: StoreKind) async throws {
        let live = try LiveServer(store: LiveServer.store(kind), idv: Self.blinkOnly)
        defer { live.stop() }
        let (client, userID) = try await live.enrolledUser()
        let bearer = try #require(client.session.sessionToken)
        let api = RawAPI(base: live.baseURL)
        let photo = try FaceFixture.frames("blink_selfie", 30...30)[0]
        let still = uploads(try PresentationAttacks.reencodedFrames(photo, count: 10))

        let answers = try await withThrowingTaskGroup(of: (Int, IDVResultResponse?).self) { group in
            for _ in 0..<8 {
                guard let challenge = try? await api.challenge(bearer: bearer) else { break }
                group.addTask {
                    let (status, body) = try await api.postData("/v1/idv/transactions/\(challenge.idvAuditTransactionID)/frames",
                                                                IDVFramesRequest(nonce: challenge.nonce, frames: still), bearer: bearer)
                    return (status, try? WireJSON.decoder().decode(IDVResultResponse.self, from: body))
                }
                try await Task.sleep(for: .milliseconds(40))
            }
            return try await group.reduce(into: [(Int, IDVResultResponse?)]()) { $0.append($1) }
        }
        let judged = answers.compactMap(\.1).filter { $0.biometricResult?.displayText == "LIVENESS_FAILED" }
        let superseded = try LiveServer.audit(live.store).list(userID: userID, transactionID: nil)
            .filter { $0.kind == AuditKind.idvCancelled.rawValue && $0.details["attempt_used"] == "true" }
        #expect(judged.count + superseded.count <= 5, "\(answers.map(\.0)) judged \(judged.count) superseded \(superseded.count)")
        #expect(try live.identity.attemptsLeft(userID: userID, factor: .biometric) == 0)
        #expect(try LiveServer.audit(live.store).list(userID: userID, transactionID: nil).filter { $0.kind == AuditKind.lockout.rawValue }.count == 1)
    }

    /// Failed enrolments are no free oracle for tuning a spoof: each uses an attempt.
    @Test(arguments: StoreKind.available)
    func failedEnrolmentsUseAttempts(kind: StoreKind) async throws {
        let live = try LiveServer(store: LiveServer.store(kind), idv: Self.blinkOnly)
        defer { live.stop() }
        let (client, _, _) = try await IdentityFlowTests.activatedUser(live)
        let photo = try FaceFixture.frames("blink_selfie", 30...30)[0]
        let still = RecordedFrames(frames: try PresentationAttacks.reencodedFrames(photo, count: 10), framesPerSecond: 12, clock: live.clock)
        let optIn = try await client.initiateIDVBiometricOptIn(consentVersion: "v1", frameSource: still)
        #expect(optIn.biometricResult?.displayText == "LIVENESS_FAILED" && !optIn.templateCreated)
        #expect(optIn.attempts == 1 && optIn.attemptsLeft == 4)

        let someoneElse = try FaceFixture.frames("talking_obama", 1...1)[0]
        let kyc = try await client.initiateActivatedCustomerKYC(documentImage: someoneElse, consentVersion: "v1",
                                                                frameSource: camera(live, "blink_selfie", 1...25))
        #expect(kyc.biometricResult?.displayText == "NOT_MATCHED" && !kyc.templateCreated && kyc.attemptsLeft == 3)
        #expect(try await client.checkIDVUserBiometricTemplateStatus().statusCode == 600)
    }

    /// The app's own upload, captured and sent again with other bytes: refused as a replay
    /// however it was changed, while a new take of the same person still matches.
    @Test(arguments: StoreKind.available)
    func replayedTakesAreRefusedWhateverTheirBytes(kind: StoreKind) async throws {
        let live = try LiveServer(store: LiveServer.store(kind), idv: Self.blinkOnly)
        defer { live.stop() }
        let (client, _) = try await live.enrolledUser()
        let take = try FaceFixture.frames("blink_selfie", 38...50)
        let matched = try await client.initiateIDVServerBiometricAuthentication(
            reason: "The real one", frameSource: RecordedFrames(frames: take, framesPerSecond: 12, clock: live.clock))
        #expect(matched.biometricResult?.displayText == "MATCHED")

        var attemptsLeft = 5
        for replay in [TakeReplay.bytesAppended, .reencoded, .resized, .mirrored, .reversed] {
            let frames = try PresentationAttacks.replayedTake(take, replay)
            #expect(frames.allSatisfy { !take.contains($0) }, "\(replay): the bytes differ from the original's")
            let result = try await client.initiateIDVServerBiometricAuthentication(
                reason: "Replay", frameSource: RecordedFrames(frames: frames, framesPerSecond: 12, clock: live.clock))
            attemptsLeft -= 1
            #expect(result.biometricResult?.displayText == "LIVENESS_FAILED" && result.biometricResult?.livenessReason == "replay",
                    "\(replay): \(String(describing: result.biometricResult))")
            #expect(result.attemptsLeft == attemptsLeft)
            if attemptsLeft == 1 { break }
        }
        let fresh = try await client.initiateIDVServerBiometricAuthentication(reason: "A new take", frameSource: camera(live, "blink_selfie", 104...118))
        #expect(fresh.biometricResult?.displayText == "MATCHED")
        // Remembered takes altered in the database no longer open: they are passed over, not an error.
        try live.store.database.execute("UPDATE frame_memories SET ciphertext = ?", [.blob(Data("garbage".utf8))])
        let after = try await client.initiateIDVServerBiometricAuthentication(reason: "After tampering", frameSource: camera(live, "blink_selfie", 119...131))
        #expect(after.biometricResult?.displayText == "MATCHED")
    }

    /// An earlier take replayed the way a fake camera plays it: resized, padded with about a
    /// second of held frames (faint noise of their own) at each end, frames dropped and
    /// repeated, or only a part of the longer enrolment take. Each is refused as a replay; a
    /// camera that sends one frame twice in a row in a new take is not. (A crop is not seen:
    /// `SequenceReplay`, and docs/security.md's liveness figures.)
    @Test(arguments: StoreKind.available)
    func replaysResizedOrPaddedAreRefusedEvenInsideTheEnrolmentTake(kind: StoreKind) async throws {
        let live = try LiveServer(store: LiveServer.store(kind), idv: Self.blinkOnly)
        defer { live.stop() }
        let (client, _) = try await live.enrolledUser()   // enrolled from blink_selfie 1...25
        let enrolment = try FaceFixture.frames("blink_selfie", 1...25)
        let take = try FaceFixture.frames("blink_selfie", 38...50)
        let matched = try await client.initiateIDVServerBiometricAuthentication(
            reason: "The real one", frameSource: RecordedFrames(frames: take, framesPerSecond: 12, clock: live.clock))
        #expect(matched.biometricResult?.displayText == "MATCHED")

        let replays: [(String, [Data])] = [
            ("part of the enrolment, resized and padded", try PresentationAttacks.replayedTake(enrolment, .partPadded)),
            ("resized and padded", try PresentationAttacks.replayedTake(take, .resizedPadded)),
            ("frames dropped and repeated", try PresentationAttacks.replayedTake(take, .droppedRepeated)),
        ]
        var attemptsLeft = 5
        for (name, frames) in replays {
            let result = try await client.initiateIDVServerBiometricAuthentication(
                reason: "Replay", frameSource: RecordedFrames(frames: frames, framesPerSecond: 12, clock: live.clock))
            attemptsLeft -= 1
            #expect(result.biometricResult?.displayText == "LIVENESS_FAILED" && result.biometricResult?.livenessReason == "replay",
                    "\(name): \(String(describing: result.biometricResult))")
            #expect(result.attemptsLeft == attemptsLeft)
        }
        // A new take whose camera sent one frame twice in a row: the repeat is set aside.
        var fresh = try FaceFixture.frames("blink_selfie", 119...131)
        fresh.insert(fresh[4], at: 5)
        let repeated = try await client.initiateIDVServerBiometricAuthentication(
            reason: "A new take", frameSource: RecordedFrames(frames: fresh, framesPerSecond: 12, clock: live.clock))
        #expect(repeated.biometricResult?.displayText == "MATCHED", "\(String(describing: repeated.biometricResult))")
    }

    /// One head turn played forward then backward, every frame re-encoded, to pass a challenge
    /// of a turn and its opposite.
    @Test(arguments: StoreKind.available)
    func aBoomerangClipIsRefused(kind: StoreKind) async throws {
        var policy = IDVPolicy()
        policy.liveness.allowedActions = [.turnLeft, .turnRight]
        policy.liveness.actionsPerChallenge = 2
        let live = try LiveServer(store: LiveServer.store(kind), idv: policy)
        defer { live.stop() }
        let (client, _, _) = try await IdentityFlowTests.activatedUser(live)
        let turn = try FaceFixture.frames("head_turn", 17...32)
        let boomerang = RecordedFrames(frames: try PresentationAttacks.boomerang(turn), framesPerSecond: 10, clock: live.clock)
        let result = try await client.initiateIDVBiometricOptIn(consentVersion: "v1", frameSource: boomerang)
        #expect(result.biometricResult?.displayText == "LIVENESS_FAILED" && result.biometricResult?.livenessReason == "sequence_reversed",
                "\(String(describing: result.biometricResult))")
        #expect(!result.templateCreated && result.attemptsLeft == 4)
    }

    /// A challenge fetched and then left unanswered costs an attempt too, once housekeeping
    /// closes it after its time (or the next start closes it).
    @Test(arguments: StoreKind.available)
    func anAbandonedChallengeUsesAnAttempt(kind: StoreKind) async throws {
        let live = try LiveServer(store: LiveServer.store(kind), idv: Self.blinkOnly)
        defer { live.stop() }
        let (client, userID) = try await live.enrolledUser()
        let api = RawAPI(base: live.baseURL)
        let abandoned = try await api.challenge(bearer: try #require(client.session.sessionToken))
        let idv = try #require(live.idv)
        #expect(try idv.closeExpiredTransactions() == 0)
        live.clock.advance(by: 601)
        #expect(try idv.closeExpiredTransactions() == 1)
        #expect(try live.identity.attemptsLeft(userID: userID, factor: .biometric) == 4)
        #expect(try live.store.transaction(id: abandoned.idvAuditTransactionID)?.state == .cancelled)
        let audit = try LiveServer.audit(live.store).list(userID: userID, transactionID: abandoned.idvAuditTransactionID)
        #expect(audit.contains { $0.kind == AuditKind.idvCancelled.rawValue && $0.details["expired"] == "true" })
    }
}
