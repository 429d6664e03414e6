import CustosCore
import CustosHTTP
import CustosRuntime
import CustosStore
import Foundation
import Testing

@Suite struct HousekeepingTests {
    @Test(arguments: StoreKind.available)
    func sweepDeletesExpiredTokensOnly(kind: StoreKind) throws {
        let store = try LiveServer.store(kind)
        defer { store.close() }
        let clock = TestClock()
        let sink = MemoryLogSink()
        let housekeeping = Housekeeping(sweeps: [.tokens(store)], clock: clock, logger: Logger(sink: sink), interval: 3600)
        defer { housekeeping.stop() }
        let now = clock.now()
        for (index, seconds) in [-5.0, -1, 60].enumerated() {
            try store.issue(SingleUseToken(purpose: "login_nonce", digest: Data([UInt8(index)]), subject: "alice",
                                           expiresAt: now.addingTimeInterval(seconds)))
        }
        #expect(housekeeping.sweep() == 2)
        #expect(try store.peek(purpose: "login_nonce", digest: Data([2]), now: now) != nil)
        #expect(housekeeping.sweep() == 0)
        #expect(sink.lines.contains { $0.contains("expired_tokens_purged") && $0.contains("\"count\":2") })
    }

    @Test(arguments: StoreKind.available)
    func sweepDeletesStaleThrottleCountersOnly(kind: StoreKind) throws {
        let store = try LiveServer.store(kind)
        defer { store.close() }
        let clock = TestClock()
        let housekeeping = Housekeeping(sweeps: [.counters(store, prefix: LoginThrottle.keyPrefix, maximumAge: 300)], clock: clock,
                                        logger: Logger(sink: MemoryLogSink()), interval: 3600)
        defer { housekeeping.stop() }
        let now = clock.now()
        _ = try store.increment(LoginThrottle.keyPrefix + "client:old", limit: 5, now: now.addingTimeInterval(-301))
        _ = try store.increment(LoginThrottle.keyPrefix + "client:new", limit: 5, now: now.addingTimeInterval(-10))
        _ = try store.increment("attempts:alice", limit: 5, now: now.addingTimeInterval(-3000))
        housekeeping.sweep()
        #expect(try store.value(LoginThrottle.keyPrefix + "client:old") == 0)
        #expect(try store.value(LoginThrottle.keyPrefix + "client:new") == 1)
        #expect(try store.value("attempts:alice") == 1)
    }

    /// The per-user counts of wrong activation codes, an unknown user id's included, go once they
    /// stopped counting an activation code's lifetime ago (the sweep `custos serve` runs).
    @Test func sweepDeletesActivationCountsOfIdsNoOneTriesAnyMore() throws {
        let store = try LiveServer.store(.sqlite)
        defer { store.close() }
        let clock = TestClock()
        let lifetime = IdentityPolicy().activationCodeLifetime
        let housekeeping = Housekeeping(sweeps: [.counters(store, prefix: IdentityService.activationCounterPrefix, maximumAge: lifetime)],
                                        clock: clock, logger: Logger(sink: MemoryLogSink()), interval: 3600)
        defer { housekeeping.stop() }
        let now = clock.now()
        _ = try store.increment("activation:ghost-\(UUID().uuidString)", limit: 50, now: now.addingTimeInterval(-lifetime - 1))
        _ = try store.increment("activation:pending-user", limit: 50, now: now.addingTimeInterval(-60))
        _ = try store.increment("attempts:alice", limit: 5, now: now.addingTimeInterval(-lifetime - 1))
        housekeeping.sweep()
        #expect(try store.purgeCounters(prefix: "activation:ghost", updatedBefore: now) == 0, "the stale count was swept")
        #expect(try store.value("activation:pending-user") == 1 && store.value("attempts:alice") == 1)
    }

    /// The counts of refused template changes go once their session's lifetime has passed, and
    /// the tries of devices bound by the password alone a day after the last one: neither is
    /// kept for ever.
    @Test func sweepDeletesTemplateRefusalsAndUnconfirmedFaceTries() throws {
        let store = try LiveServer.store(.sqlite)
        defer { store.close() }
        let clock = TestClock()
        let policy = IdentityPolicy()
        let housekeeping = Housekeeping(sweeps: [
            .counters(store, prefix: IdentityService.templateRefusalsPrefix, maximumAge: policy.sessionLifetime),
            .counters(store, prefix: IdentityService.unconfirmedFaceTriesPrefix, maximumAge: policy.lockoutCap),
        ], clock: clock, logger: Logger(sink: MemoryLogSink()), interval: 3600)
        defer { housekeeping.stop() }
        let now = clock.now()
        _ = try store.increment(IdentityService.templateRefusalsPrefix + "old-session:alice", limit: 5,
                                now: now.addingTimeInterval(-policy.sessionLifetime - 1))
        _ = try store.increment(IdentityService.templateRefusalsPrefix + "live-session:alice", limit: 5, now: now.addingTimeInterval(-60))
        _ = try store.increment(IdentityService.unconfirmedFaceTriesPrefix + "alice", limit: 5, now: now.addingTimeInterval(-policy.lockoutCap - 1))
        _ = try store.increment(IdentityService.unconfirmedFaceTriesPrefix + "bob", limit: 5, now: now.addingTimeInterval(-60))
        housekeeping.sweep()
        #expect(try store.value(IdentityService.templateRefusalsPrefix + "old-session:alice") == 0)
        #expect(try store.value(IdentityService.templateRefusalsPrefix + "live-session:alice") == 1)
        #expect(try store.value(IdentityService.unconfirmedFaceTriesPrefix + "alice") == 0)
        #expect(try store.value(IdentityService.unconfirmedFaceTriesPrefix + "bob") == 1)
    }
}
