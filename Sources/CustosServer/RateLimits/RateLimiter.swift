import CustosConfiguration
import CustosCore
import CustosHTTP
import Foundation

/// Fixed-window request limits kept in a `CounterStore`: the database when several nodes
/// share one (PostgreSQL), memory on a single SQLite node. Each window is a counter of its
/// own (`rate:<scope>:<who>:<window>`); housekeeping deletes the past ones.
public struct RateLimiter: Sendable {
    /// Every rate-limit counter's key starts with this.
    public static let keyPrefix = "rate:"

    let counters: any CounterStore
    let clock: any Clock
    public let policy: RateLimitPolicy

    public init(counters: any CounterStore, clock: any Clock, policy: RateLimitPolicy) {
        self.counters = counters
        self.clock = clock
        self.policy = policy
    }

    /// Deletes the counters of windows that have ended; returns how many.
    @discardableResult
    public func purgeEndedWindows() throws -> Int {
        try counters.purgeCounters(prefix: Self.keyPrefix, updatedBefore: clock.now().addingTimeInterval(-policy.window))
    }

    /// Counts one request from the request's client address; 429 past the limit.
    func admitClient(_ request: Request, scope: String) throws {
        try admit(scope: scope, who: "ip:" + (request.remoteAddress?.limitKey ?? "-"), limit: policy.perClient)
    }

    /// Counts one request of a proven user; 429 past the limit.
    func admitUser(_ userID: String, scope: String) throws {
        try admit(scope: scope, who: "user:" + userID, limit: policy.perUser)
    }

    private func admit(scope: String, who: String, limit: Int) throws {
        guard limit > 0 else { return }
        let instant = clock.now()
        let now = instant.timeIntervalSince1970
        let window = (now / policy.window).rounded(.down)
        let key = "\(Self.keyPrefix)\(scope):\(who):\(Int64(window))"
        guard try counters.increment(key, limit: Int64(limit), now: instant) == nil else { return }
        let retryAfter = max(1, Int(((window + 1) * policy.window - now).rounded(.up)))
        throw HTTPError(status: 429, code: "rate_limited", message: "Too many requests; retry in \(retryAfter) s.",
                        headers: ["Retry-After": String(retryAfter)])
    }
}
