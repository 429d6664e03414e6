import CustosAPI
@testable import CustosCore
import CustosFakes
import Foundation
import Testing

/// Biometric failures have a counter of their own: a password sign-in does not refill it, so
/// whoever holds the device and the password gets five presentation attacks in all, not five
/// per sign-in.
@Suite struct BiometricAttemptTests {
    @Test func signInsBetweenFailuresDoNotRefillTheFaceAttempts() throws {
        let harness = try ServiceHarness()
        try harness.enrolled()
        let device = try #require(try harness.identity.devices(userID: "alice").first)
        var lefts: [Int] = []
        for round in 0..<5 {
            let result = try harness.submit(try harness.challenged(), person: "alice", spoof: true).result
            lefts.append(result.attemptsLeft)
            if round == 4 {
                #expect(result.status == .attemptsExhausted, "the fifth biometric failure is 153")
            } else {
                #expect(result.decision == .livenessFailed)
                // A good password + device sign-in between two tries: the face count goes on.
                #expect(try harness.login(device: device).status == .success)
                #expect(try harness.identity.attemptsLeft(userID: "alice", factor: .credentials) == 5)
            }
        }
        #expect(lefts == [4, 3, 2, 1, 0])
        #expect(try harness.identity.user(id: "alice").isLocked(at: harness.clock.now()))
        // The lock is the user's: the password sign-in is refused too.
        #expect(try harness.login(device: device).status == .attemptsExhausted)
    }

    @Test func wrongPasswordsDoNotSpendTheFaceAttempts() throws {
        let harness = try ServiceHarness()
        try harness.enrolled()
        let device = try #require(try harness.identity.devices(userID: "alice").first)
        for _ in 0..<3 { #expect(try harness.login(device: device, password: "not the password").status == .credentialsRejected) }
        #expect(try harness.identity.attemptsLeft(userID: "alice", factor: .biometric) == 5)
        #expect(try harness.identity.attemptsLeft(userID: "alice", factor: .credentials) == 2)
        // A match resets the face count only.
        _ = try harness.submit(try harness.challenged(), person: "mallory")
        #expect(try harness.submit(try harness.challenged(), person: "alice").result.attemptsLeft == 5)
        #expect(try harness.identity.attemptsLeft(userID: "alice", factor: .credentials) == 2)
    }

    @Test func anUnlockGivesEveryFactorItsAttemptsBack() throws {
        let harness = try ServiceHarness()
        try harness.enrolled()
        for _ in 0..<5 { _ = try harness.submit(try harness.challenged(), person: "mallory") }
        #expect(try harness.identity.user(id: "alice").isLocked(at: harness.clock.now()))
        _ = try harness.identity.unlock(userID: "alice", actor: "test")
        #expect(try harness.identity.attemptsLeft(userID: "alice", factor: .biometric) == 5)
        #expect(try harness.submit(try harness.challenged(), person: "alice").result.decision == .matched)
    }
}
