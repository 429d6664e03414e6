import CustosCore
import CustosHTTP
import Dispatch
import Foundation

/// Deletes expired single-use tokens (login and challenge nonces, codes), remembered frame
/// fingerprints past their keeping period, and stale throttle counters on a timer, so challenges nobody answers and failures of
/// clients that went away, from any client, do not pile up in the database. Every node may
/// run it: the deletes are idempotent.
public final class Housekeeping: @unchecked Sendable {
    /// Counters swept: key prefix and how long after their last failure they go.
    public struct CounterSweep: Sendable {
        public var prefix: String
        public var maximumAge: TimeInterval
        public init(prefix: String, maximumAge: TimeInterval) {
            self.prefix = prefix
            self.maximumAge = maximumAge
        }
    }

    private let store: any SingleUseTokenStore & CounterStore & FrameMemoryStore
    private let counterSweeps: [CounterSweep]
    private let clock: any Clock
    private let logger: Logger
    private let timer: DispatchSourceTimer

    /// Starts at once; the first sweep runs after `interval` seconds.
    public init(store: any SingleUseTokenStore & CounterStore & FrameMemoryStore, clock: any Clock, logger: Logger, interval: TimeInterval = 60,
                counterSweeps: [CounterSweep] = []) {
        self.store = store
        self.counterSweeps = counterSweeps
        self.clock = clock
        self.logger = logger
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "custos.housekeeping"))
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler { [weak self] in _ = self?.sweep() }
        timer.resume()
    }

    /// One sweep; returns how many tokens went (nil when the database failed, which is logged
    /// and retried at the next sweep).
    @discardableResult
    public func sweep() -> Int? {
        do {
            let now = clock.now()
            let purged = try store.purgeExpired(now: now)
            if purged > 0 { logger.info("expired_tokens_purged", ["count": .int(purged)]) }
            let memories = try store.purgeFrameMemories(now: now)
            if memories > 0 { logger.info("expired_frame_memories_purged", ["count": .int(memories)]) }
            for sweep in counterSweeps {
                let counters = try store.purgeCounters(prefix: sweep.prefix, updatedBefore: now.addingTimeInterval(-sweep.maximumAge))
                if counters > 0 { logger.info("stale_counters_purged", ["count": .int(counters), "prefix": .string(sweep.prefix)]) }
            }
            return purged
        } catch {
            logger.warning("housekeeping_failed", ["error": .string("\(error)")])
            return nil
        }
    }

    /// Stops the timer; call before closing the store.
    public func stop() {
        timer.cancel()
    }
}
