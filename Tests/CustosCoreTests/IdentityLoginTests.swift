import CustosAPI
@testable import CustosCore
import CustosFakes
import Foundation
import Testing

/// Login nonces and the lockout that failed logins lead to.
@Suite struct IdentityLoginTests {
    @Test func aNonceIsUsedOnce() throws {
        let harness = try ServiceHarness()
        let (device, _, _) = try harness.activeUser()
        let nonce = try harness.identity.loginChallenge(userID: "alice", deviceID: device.id)
        let signature = FakeDeviceKeys.signature(of: nonce.nonce, key: ServiceHarness.key)
        let first = try harness.identity.login(userID: "alice", deviceID: device.id, nonce: nonce.nonce, signature: signature,
                                               password: ServiceHarness.password)
        #expect(first.status == .success)
        #expect(throws: IdentityError.invalidNonce) {
            try harness.identity.login(userID: "alice", deviceID: device.id, nonce: nonce.nonce, signature: signature,
                                       password: ServiceHarness.password)
        }
    }

    @Test func theNonceExpiresAtItsLifetime() throws {
        let harness = try ServiceHarness { $0.loginNonceLifetime = 60 }
        let (device, _, _) = try harness.activeUser()
        let kept = try harness.identity.loginChallenge(userID: "alice", deviceID: device.id)
        let late = try harness.identity.loginChallenge(userID: "alice", deviceID: device.id)
        #expect(late.expiresAt == harness.clock.now().addingTimeInterval(60))
        harness.clock.advance(by: 59)
        #expect(try harness.identity.login(userID: "alice", deviceID: device.id, nonce: kept.nonce,
                                           signature: FakeDeviceKeys.signature(of: kept.nonce, key: ServiceHarness.key),
                                           password: ServiceHarness.password).status == .success)
        harness.clock.advance(by: 1)
        #expect(throws: IdentityError.invalidNonce) {
            try harness.identity.login(userID: "alice", deviceID: device.id, nonce: late.nonce,
                                       signature: FakeDeviceKeys.signature(of: late.nonce, key: ServiceHarness.key),
                                       password: ServiceHarness.password)
        }
    }

    /// Two requests with one nonce at once: exactly one is judged, the other is refused.
    @Test func oneNonceRacedByManyRequestsWinsOnce() throws {
        let harness = try ServiceHarness()
        let (device, _, _) = try harness.activeUser()
        let nonce = try harness.identity.loginChallenge(userID: "alice", deviceID: device.id)
        let signature = FakeDeviceKeys.signature(of: nonce.nonce, key: ServiceHarness.key)
        let identity = harness.identity
        let results = runConcurrently(8) { _ in
            try identity.login(userID: "alice", deviceID: device.id, nonce: nonce.nonce, signature: signature, password: ServiceHarness.password)
        }
        #expect(results.compactMap { try? $0.get() }.map(\.status) == [.success])
        for case .failure(let error) in results { #expect(error as? IdentityError == .invalidNonce) }
        #expect(try harness.identity.sessions(userID: "alice").count == 2)
    }

    @Test func wrongPasswordsLockTheUserAndTheLockRunsOut() throws {
        let harness = try ServiceHarness { $0.maximumAttempts = 3; $0.lockoutBase = 300 }
        let (device, _, _) = try harness.activeUser()
        #expect(try harness.login(device: device, password: "wrong password 1").attemptsLeft == 2)
        #expect(try harness.login(device: device, password: "wrong password 2").attemptsLeft == 1)
        let locked = try harness.login(device: device, password: "wrong password 3")
        #expect(locked.status == .attemptsExhausted)
        #expect(try harness.identity.user(id: "alice").lockedUntil == harness.clock.now().addingTimeInterval(300))
        // Even the right password is refused while the lock lasts, without using an attempt.
        harness.clock.advance(by: 299)
        #expect(try harness.login(device: device).status == .attemptsExhausted)
        harness.clock.advance(by: 1)
        let after = try harness.login(device: device)
        #expect(after.status == .success)
        #expect(after.attemptsLeft == 3)
        #expect(try harness.identity.user(id: "alice").lockedUntil == nil)
    }

    /// Tries whose process died while their passwords were judged took every attempt and never
    /// concluded: the right password waits for them (429 `attempts_in_flight`) only until their
    /// leases expire, then is let in with every attempt back, on any node; a failure counts as
    /// before, and the dead tries' leases never lock the user.
    @Test func attemptsHeldByTriesThatDiedComeBackAtTheirLeasesEnd() throws {
        let harness = try ServiceHarness { $0.maximumAttempts = 3; $0.attemptLease = 120; $0.attemptWait = 0.05 }
        let (device, _, _) = try harness.activeUser()
        for _ in 0..<3 { #expect(try harness.identity.takeAttempt(userID: "alice", factor: .credentials) != nil) }
        #expect(throws: IdentityError.attemptsInFlight) { try harness.login(device: device) }
        harness.clock.advance(by: 119)
        #expect(throws: IdentityError.attemptsInFlight) { try harness.login(device: device) }
        harness.clock.advance(by: 1)
        let after = try harness.login(device: device)
        #expect(after.status == .success)
        #expect(try harness.identity.attemptsLeft(userID: "alice", factor: .credentials) == 3)

        // One dead try and two wrong passwords: the wrong ones count, the dead one comes back.
        #expect(try harness.identity.takeAttempt(userID: "alice", factor: .credentials) != nil)
        #expect(try harness.login(device: device, password: "wrong password 1").attemptsLeft == 1)
        let locked = try harness.login(device: device, password: "wrong password 2")
        #expect(locked.status == .attemptsExhausted)
        harness.clock.advance(by: 300)
        #expect(try harness.login(device: device).status == .success)
        #expect(try harness.store.reclaimExpiredLeases(now: harness.clock.now()) == 0)
    }

    /// A failure whose lease expired while it was judged (a judgement slower than the lease) is
    /// still counted: no free try.
    @Test func aFailureJudgedPastItsLeaseStillCounts() throws {
        let harness = try ServiceHarness { $0.maximumAttempts = 3; $0.attemptLease = 10 }
        try harness.activeUser()
        let used = try harness.identity.takeAttempt(userID: "alice", factor: .credentials)
        harness.clock.advance(by: 11)
        #expect(try harness.store.reclaimExpiredLeases(now: harness.clock.now()) == 1)
        #expect(try harness.identity.attemptsLeft(userID: "alice", factor: .credentials) == 3)
        let outcome = try harness.identity.concludeFailedAttempt(userID: "alice", used: used, factor: .credentials)
        #expect(outcome.status == .credentialsRejected)
        #expect(try harness.identity.attemptsLeft(userID: "alice", factor: .credentials) == 2)

        // Its lease gone, another try takes and fails meanwhile; the slow one's failure is the
        // last: it locks, though the count it took was not the last.
        let slow = try harness.identity.takeAttempt(userID: "alice", factor: .credentials)
        #expect(slow == 2)
        harness.clock.advance(by: 11)
        let quick = try harness.identity.takeAttempt(userID: "alice", factor: .credentials)
        #expect(try harness.identity.concludeFailedAttempt(userID: "alice", used: quick, factor: .credentials).attemptsLeft == 1)
        let last = try harness.identity.concludeFailedAttempt(userID: "alice", used: slow, factor: .credentials)
        #expect(last.status == .attemptsExhausted)
        #expect(try harness.identity.user(id: "alice").isLocked(at: harness.clock.now()))
    }

    /// A count full with no try in flight and no lock (a lock that was never written): the next
    /// try locks the user at once instead of waiting for attempts that will never come free.
    @Test func aFullCountWithNothingInFlightLocks() throws {
        let harness = try ServiceHarness { $0.maximumAttempts = 3; $0.attemptWait = 30 }
        let (device, _, _) = try harness.activeUser()
        for _ in 0..<3 { _ = try harness.store.increment("attempts:alice", limit: 3, now: harness.clock.now()) }
        #expect(try harness.login(device: device).status == .attemptsExhausted)
        #expect(try harness.identity.user(id: "alice").isLocked(at: harness.clock.now()))
    }

    /// Each lock lasts twice the one before, up to the cap; unlocking keeps the history.
    @Test func locksDoubleUpToTheCap() throws {
        let harness = try ServiceHarness { $0.maximumAttempts = 1; $0.lockoutBase = 300; $0.lockoutCap = 1000 }
        let (device, _, _) = try harness.activeUser()
        for expected in [300.0, 600, 1000, 1000] {
            #expect(try harness.login(device: device, password: "wrong password").status == .attemptsExhausted)
            let user = try harness.identity.user(id: "alice")
            #expect(user.lockedUntil == harness.clock.now().addingTimeInterval(expected))
            harness.clock.advance(by: expected)
        }
        #expect(try harness.identity.user(id: "alice").lockoutCount == 4)
        _ = try harness.identity.unlock(userID: "alice", actor: "test")
        #expect(try harness.identity.user(id: "alice").lockoutCount == 4)
        #expect(harness.identity.policy.lockDuration(afterLocks: 1) == 600)
    }

    /// A bad signature proves nothing about the user: it counts against the device, never the user.
    @Test func aBadSignatureDoesNotCountAgainstTheUser() throws {
        let harness = try ServiceHarness { $0.deviceProofAttempts = 2 }
        let (device, _, _) = try harness.activeUser()
        let forged = Data(repeating: 7, count: 64).base64URLEncodedString
        for _ in 0..<2 {
            let nonce = try harness.identity.loginChallenge(userID: "alice", deviceID: device.id)
            let outcome = try harness.identity.login(userID: "alice", deviceID: device.id, nonce: nonce.nonce, signature: forged,
                                                     password: ServiceHarness.password, client: "10.0.0.1")
            #expect(outcome.status == .credentialsRejected)
        }
        let nonce = try harness.identity.loginChallenge(userID: "alice", deviceID: device.id)
        #expect(throws: IdentityError.throttled(retryAfter: 300)) {
            try harness.identity.login(userID: "alice", deviceID: device.id, nonce: nonce.nonce, signature: forged,
                                       password: ServiceHarness.password, client: "10.0.0.1")
        }
        #expect(try harness.identity.attemptsLeft(userID: "alice", factor: .credentials) == 5)
    }
}
