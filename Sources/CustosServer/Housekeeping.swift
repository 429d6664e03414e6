import CustosCore
import CustosHTTP
import Dispatch
import Foundation

/// Deletes expired single-use tokens (login and challenge nonces, codes, remembered frames)
/// on a timer, so challenges nobody answers, from any client, do not pile up in the database.
/// Every node may run it: the delete is idempotent.
public final class Housekeeping: @unchecked Sendable {
    private let store: any SingleUseTokenStore
    private let clock: any Clock
    private let logger: Logger
    private let timer: DispatchSourceTimer

    /// Starts at once; the first sweep runs after `interval` seconds.
    public init(store: any SingleUseTokenStore, clock: any Clock, logger: Logger, interval: TimeInterval = 60) {
        self.store = store
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
            let purged = try store.purgeExpired(now: clock.now())
            if purged > 0 { logger.info("expired_tokens_purged", ["count": .int(purged)]) }
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
