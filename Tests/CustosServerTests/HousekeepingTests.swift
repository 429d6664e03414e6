import CustosCore
import CustosHTTP
import CustosServer
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
        let housekeeping = Housekeeping(store: store, clock: clock, logger: Logger(sink: sink), interval: 3600)
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
}
