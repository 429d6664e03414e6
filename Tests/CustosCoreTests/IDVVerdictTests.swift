import CustosAPI
@testable import CustosCore
import CustosFakes
import Foundation
import Testing

/// What a capture is judged to be, and what each verdict does to the attempts.
@Suite struct IDVVerdictTests {
    @Test func enrolmentStoresATemplateAndGivesTheAttemptBack() throws {
        let harness = try ServiceHarness()
        try harness.enrolled()
        #expect(try harness.idv.templateStatus(userID: "alice").exists)
        #expect(try harness.identity.attemptsLeft(userID: "alice", factor: .biometric) == 5)
    }

    @Test func theSameFaceMatchesAndStartsTheCountAgain() throws {
        let harness = try ServiceHarness()
        try harness.enrolled()
        _ = try harness.submit(try harness.challenged(), person: "mallory")
        let (transaction, result) = try harness.submit(try harness.challenged(), person: "alice")
        #expect(result.status == .success)
        #expect(result.decision == .matched)
        #expect(result.distance == 0)
        #expect(result.attemptsLeft == 5)
        #expect(transaction.state == .completed)
        #expect(transaction.completedAt == harness.clock.now())
    }

    @Test func anotherFaceIsNotMatchedAndUsesAnAttempt() throws {
        let harness = try ServiceHarness()
        try harness.enrolled()
        let result = try harness.submit(try harness.challenged(), person: "mallory").result
        #expect(result.status == .success)
        #expect(result.decision == .notMatched)
        #expect(try #require(result.distance) > IDVPolicy.calibratedThreshold)
        #expect(result.attempts == 1)
        #expect(result.attemptsLeft == 4)
    }

    @Test func aSpoofFailsLivenessAndUsesAnAttempt() throws {
        let harness = try ServiceHarness()
        try harness.enrolled()
        let result = try harness.submit(try harness.challenged(), person: "alice", spoof: true).result
        #expect(result.decision == .livenessFailed)
        #expect(result.livenessFailure == .flatSurface)
        #expect(result.attemptsLeft == 4)
    }

    /// The failure that uses the last attempt answers 153 and locks the user; with the count
    /// spent nothing more is judged.
    @Test func theLastAttemptAnswers153AndLocks() throws {
        let harness = try ServiceHarness { $0.maximumAttempts = 2 }
        try harness.enrolled()
        #expect(try harness.submit(try harness.challenged(), person: "mallory").result.attemptsLeft == 1)
        let last = try harness.submit(try harness.challenged(), person: "mallory").result
        #expect(last.status == .attemptsExhausted)
        #expect(last.attemptsLeft == 0)
        #expect(try harness.identity.user(id: "alice").isLocked(at: harness.clock.now()))
        let spent = try harness.submit(try harness.challenged(), person: "alice").result
        #expect(spent.status == .attemptsExhausted)
        #expect(spent.decision == nil)
        #expect(spent.attempts == 0)
    }

    @Test func authenticationWithoutATemplateCompletesAt600() throws {
        let harness = try ServiceHarness()
        try harness.activeUser()
        let transaction = try harness.idv.initiate(userID: "alice", workflow: .serverBiometricAuthentication, reason: nil, consent: nil)
        #expect(transaction.state == .completed)
        #expect(transaction.result?.status == .noTemplate)
        #expect(throws: IDVError.transactionState(.completed)) { try harness.idv.confirm(userID: "alice", transactionID: transaction.id) }
    }

    /// A take sent before (here: the enrolment's) is a replay, however it comes back.
    @Test func aReplayedTakeFailsLiveness() throws {
        let harness = try ServiceHarness()
        try harness.activeUser()
        let enrolment = try harness.challenged("alice", .biometricOptIn)
        _ = try harness.submit(enrolment, person: "alice", take: "recorded")
        let replay = try harness.submit(try harness.challenged(), person: "alice", take: "recorded").result
        #expect(replay.decision == .livenessFailed)
        #expect(replay.livenessFailure == .replay)
        #expect(replay.attemptsLeft == 4)
        #expect(try harness.submit(try harness.challenged(), person: "alice", take: "fresh").result.decision == .matched)
    }

    /// Frames that cannot be read conclude nothing: the attempt comes back, the nonce is spent.
    @Test func unreadableFramesConcludeNothingButSpendTheNonce() throws {
        let harness = try ServiceHarness()
        try harness.enrolled()
        let challenge = try harness.challenged()
        let garbage = (0..<6).map { CapturedFrame(capturedAtMilliseconds: Int64($0) * 100, jpeg: Data([0xFF, 0xD8, 0xFF, 0x00, UInt8($0)])) }
        #expect(throws: IDVError.imageUnreadable(what: "frame 1", code: "image_corrupt")) {
            try harness.idv.submit(userID: "alice", transactionID: challenge.transactionID, nonce: challenge.nonce, frames: garbage)
        }
        #expect(try harness.identity.attemptsLeft(userID: "alice", factor: .biometric) == 5)
        #expect(try harness.idv.transaction(id: challenge.transactionID).state == .challenged)
        #expect(throws: IDVError.challengeRejected) { try harness.submit(challenge, person: "alice") }
    }
}
