import CustosCore
import CustosHTTP
import Dispatch
import Foundation

/// Runs the server's sweeps on a timer — expired single-use tokens (nonces, codes, grants),
/// remembered frame fingerprints past their keeping period, document scan images past their
/// retention period, stale throttle counters, expired sessions, IDV transactions left open
/// past their time — so that what nobody finishes, from any client, does not pile up in the
/// database and nothing is kept longer than configured. Every node may run it: each sweep is
/// idempotent.
public final class Housekeeping: @unchecked Sendable {
    /// One sweep: its log name and what it does at a moment, returning how many rows it removed.
    public struct Sweep: Sendable {
        public var name: String
        public var run: @Sendable (Date) throws -> Int

        public init(_ name: String, run: @escaping @Sendable (Date) throws -> Int) {
            self.name = name
            self.run = run
        }

        /// Expired single-use tokens.
        public static func tokens(_ store: any SingleUseTokenStore) -> Sweep {
            Sweep("expired_tokens_purged") { try store.purgeExpired(now: $0) }
        }

        /// Frame memories past their keeping period.
        public static func frameMemories(_ store: any FrameMemoryStore) -> Sweep {
            Sweep("expired_frame_memories_purged") { try store.purgeFrameMemories(now: $0) }
        }

        /// Document scan images past their retention period.
        public static func documents(_ store: any DocumentStore) -> Sweep {
            Sweep("expired_documents_purged") { try store.purgeDocuments(now: $0) }
        }

        /// Counts held by leases that expired (tries whose process died mid-judgement).
        public static func counterLeases(_ store: any CounterLeaseStore) -> Sweep {
            Sweep("expired_counter_leases_reclaimed") { try store.reclaimExpiredLeases(now: $0) }
        }

        /// Counters under `prefix` whose last increment is older than `maximumAge`.
        public static func counters(_ store: any CounterStore, prefix: String, maximumAge: TimeInterval) -> Sweep {
            Sweep("stale_counters_purged") { try store.purgeCounters(prefix: prefix, updatedBefore: $0.addingTimeInterval(-maximumAge)) }
        }
    }

    private let sweeps: [Sweep]
    private let clock: any Clock
    private let logger: Logger
    private let timer: DispatchSourceTimer

    /// Starts at once; the first sweep runs after `interval` seconds.
    public init(sweeps: [Sweep], clock: any Clock, logger: Logger, interval: TimeInterval = 60) {
        self.sweeps = sweeps
        self.clock = clock
        self.logger = logger
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "custos.housekeeping"))
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler { [weak self] in _ = self?.sweep() }
        timer.resume()
    }

    /// Runs every sweep once; returns how many rows went in all (nil when one failed: it is
    /// logged, the others still run, and it is retried at the next sweep).
    @discardableResult
    public func sweep() -> Int? {
        let now = clock.now()
        var total: Int? = 0
        for sweep in sweeps {
            do {
                let count = try sweep.run(now)
                if count > 0 { logger.info(sweep.name, ["count": .int(count)]) }
                total = total.map { $0 + count }
            } catch {
                logger.warning("housekeeping_failed", ["sweep": .string(sweep.name), "error": .string("\(error)")])
                total = nil
            }
        }
        return total
    }

    /// Stops the timer; call before closing the store.
    public func stop() {
        timer.cancel()
    }
}
