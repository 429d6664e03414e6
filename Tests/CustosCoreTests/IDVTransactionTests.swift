import CustosAPI
@testable import CustosCore
import CustosFakes
import Foundation
import Testing

/// The transaction's states and the moves between them: confirm, nonce, cancel, supersede,
/// expiry.
@Suite struct IDVTransactionTests {
    @Test func aTransactionMovesThroughItsStates() throws {
        let harness = try ServiceHarness()
        try harness.enrolled()
        let started = try harness.idv.initiate(userID: "alice", workflow: .serverBiometricAuthentication, reason: "Pay", consent: nil)
        #expect(started.state == .awaitingConfirmation)
        #expect(started.expiresAt == harness.clock.now().addingTimeInterval(600))
        #expect(throws: IDVError.transactionState(.awaitingConfirmation)) {
            try harness.idv.submit(userID: "alice", transactionID: started.id, nonce: "n",
                                   frames: ScriptedFrame.take(person: "alice", take: "early"))
        }
        guard case .selfie(let challenge) = try harness.idv.confirm(userID: "alice", transactionID: started.id) else {
            Issue.record("no challenge")
            return
        }
        #expect(try harness.idv.transaction(id: started.id).state == .challenged)
        #expect(challenge.expiresAt == harness.clock.now().addingTimeInterval(120))
        #expect(throws: IDVError.transactionState(.challenged)) { try harness.idv.confirm(userID: "alice", transactionID: started.id) }
        _ = try harness.submit(challenge, person: "alice")
        #expect(throws: IDVError.transactionState(.completed)) { try harness.submit(challenge, person: "alice") }
        #expect(throws: IDVError.transactionState(.completed)) { try harness.idv.cancel(userID: "alice", transactionID: started.id) }
    }

    @Test func anotherUsersTransactionIsNotFound() throws {
        let harness = try ServiceHarness()
        try harness.enrolled()
        let challenge = try harness.challenged()
        #expect(throws: IDVError.transactionNotFound) { try harness.idv.cancel(userID: "bob", transactionID: challenge.transactionID) }
        #expect(throws: IDVError.transactionNotFound) { try harness.idv.ownTransaction(userID: "alice", id: "not-hex") }
    }

    @Test func anotherTransactionsNonceIsRejected() throws {
        let harness = try ServiceHarness()
        try harness.enrolled()
        try harness.enrolled("bob", person: "bob")
        let mine = try harness.challenged()
        let theirs = try harness.challenged("bob")
        #expect(throws: IDVError.challengeRejected) {
            try harness.idv.submit(userID: "alice", transactionID: mine.transactionID, nonce: theirs.nonce,
                                   frames: ScriptedFrame.take(person: "alice", take: "t"))
        }
        // The rejected nonce was not spent: its own transaction still takes it.
        #expect(try harness.submit(theirs, person: "bob", userID: "bob").result.decision == .matched)
    }

    @Test func decliningTheStartIsFree() throws {
        let harness = try ServiceHarness()
        try harness.enrolled()
        let started = try harness.idv.initiate(userID: "alice", workflow: .serverBiometricAuthentication, reason: nil, consent: nil)
        let (transaction, result) = try harness.idv.cancel(userID: "alice", transactionID: started.id)
        #expect(transaction.state == .cancelled)
        #expect(result.status == .userCancelledSelfie)
        #expect(result.attempts == 0)
        #expect(try harness.identity.attemptsLeft(userID: "alice", factor: .biometric) == 5)
    }

    /// Once the challenge was seen, cancelling costs an attempt (no free re-rolls).
    @Test func cancellingAChallengeUsesAnAttempt() throws {
        let harness = try ServiceHarness()
        try harness.enrolled()
        let challenge = try harness.challenged()
        let (_, result) = try harness.idv.cancel(userID: "alice", transactionID: challenge.transactionID)
        #expect(result.status == .userCancelledSelfie)
        #expect(result.attempts == 1)
        #expect(result.attemptsLeft == 4)
        #expect(throws: IDVError.transactionState(.cancelled)) { try harness.submit(challenge, person: "alice") }
    }

    @Test func aNewTransactionSupersedesTheOpenOne() throws {
        let harness = try ServiceHarness()
        try harness.enrolled()
        let first = try harness.challenged()
        let second = try harness.challenged()
        let superseded = try harness.idv.transaction(id: first.transactionID)
        #expect(superseded.state == .cancelled)
        #expect(superseded.result?.attempts == 1)
        #expect(try harness.identity.attemptsLeft(userID: "alice", factor: .biometric) == 4)
        #expect(try harness.submit(second, person: "alice").result.decision == .matched)
    }

    @Test func anUnconfirmedTransactionExpiresAtItsLifetime() throws {
        let harness = try ServiceHarness { _ in } idv: { $0.transactionLifetime = 600 }
        try harness.enrolled()
        let kept = try harness.idv.initiate(userID: "alice", workflow: .serverBiometricAuthentication, reason: nil, consent: nil)
        harness.clock.advance(by: 599)
        _ = try harness.idv.confirm(userID: "alice", transactionID: kept.id)
        let late = try harness.idv.initiate(userID: "alice", workflow: .serverBiometricAuthentication, reason: nil, consent: nil)
        harness.clock.advance(by: 600)
        #expect(throws: IDVError.transactionExpired) { try harness.idv.confirm(userID: "alice", transactionID: late.id) }
    }

    @Test func theChallengeExpiresAtItsLifetime() throws {
        let harness = try ServiceHarness { _ in } idv: { $0.liveness.challengeLifetime = 120 }
        try harness.enrolled()
        let challenge = try harness.challenged()
        harness.clock.advance(by: 120)
        #expect(throws: IDVError.challengeRejected) { try harness.submit(challenge, person: "alice") }
        #expect(try harness.identity.attemptsLeft(userID: "alice", factor: .biometric) == 5)
    }

    /// Housekeeping closes what ran out: a challenge left unanswered costs its attempt.
    @Test func housekeepingClosesExpiredTransactions() throws {
        let harness = try ServiceHarness { _ in } idv: { $0.liveness.challengeLifetime = 120 }
        try harness.enrolled()
        let challenge = try harness.challenged()
        harness.clock.advance(by: 119)
        #expect(try harness.idv.closeExpiredTransactions() == 0)
        harness.clock.advance(by: 1)
        #expect(try harness.idv.closeExpiredTransactions() == 1)
        let closed = try harness.idv.transaction(id: challenge.transactionID)
        #expect(closed.state == .cancelled)
        #expect(closed.result?.attemptsLeft == 4)
        #expect(try harness.idv.closeExpiredTransactions() == 0)
    }
}
