import Foundation

/// Counts failed device proofs (an unknown device, a revoked one, a bad signature) per device
/// id from one client address and per client address — never against the user.
///
/// A login without a valid signature of a device bound to the user has proven nothing about
/// that user, so it must not be able to lock them out or end their sessions; it can only slow
/// itself down. Keying the device count by client address too keeps a stranger who knows a
/// device id from throttling that device where its owner is.
public struct LoginThrottle: Sendable {
    let counters: any CounterStore
    /// Failures allowed per device id and client address within `window`.
    public let perDevice: Int64
    /// Failures allowed per client address within `window`.
    public let perClient: Int64
    /// A full count clears this long after its last failure, seconds.
    public let window: TimeInterval

    /// Every throttle counter's key starts with this (housekeeping sweeps them).
    public static let keyPrefix = "login_throttle:"

    public init(counters: any CounterStore, perDevice: Int64, perClient: Int64, window: TimeInterval) {
        self.counters = counters
        self.perDevice = perDevice
        self.perClient = perClient
        self.window = window
    }

    private func keys(deviceID: String, client: String?) -> (device: String, client: String) {
        let client = client ?? "-"
        return (Self.keyPrefix + "device:" + client + "|" + deviceID, Self.keyPrefix + "client:" + client)
    }

    /// Seconds until this device (from this client) may fail again; nil when it may now.
    public func retryAfter(deviceID: String, client: String?, now: Date) throws -> TimeInterval? {
        let (deviceKey, clientKey) = keys(deviceID: deviceID, client: client)
        var wait: TimeInterval = 0
        for (key, limit) in [(deviceKey, perDevice), (clientKey, perClient)] where try counters.value(key) >= limit {
            guard let last = try counters.lastIncrement(key) else { continue }
            let clears = last.addingTimeInterval(window)
            if clears > now {
                wait = max(wait, clears.timeIntervalSince(now))
            } else {
                try counters.reset(key)
            }
        }
        return wait > 0 ? wait : nil
    }

    /// Counts one failure; returns the failures left for this device and client (0: the next
    /// one waits out the window).
    public func recordFailure(deviceID: String, client: String?, now: Date) throws -> Int {
        let (deviceKey, clientKey) = keys(deviceID: deviceID, client: client)
        let clientUsed = try counters.increment(clientKey, limit: perClient, now: now) ?? perClient
        let deviceUsed = try counters.increment(deviceKey, limit: perDevice, now: now) ?? perDevice
        return Int(max(0, min(perDevice - deviceUsed, perClient - clientUsed)))
    }

    /// Admits one more of what `name` counts (a request for one user, from every address
    /// together): nil, counted, while fewer than `limit` were admitted within `window` of the
    /// last; else the seconds until the count clears (nothing counted).
    public func admitUserWide(_ name: String, limit: Int64, now: Date) throws -> TimeInterval? {
        let key = Self.keyPrefix + "user:" + name
        if try counters.value(key) >= limit, let last = try counters.lastIncrement(key) {
            let clears = last.addingTimeInterval(window)
            if clears > now { return clears.timeIntervalSince(now) }
            try counters.reset(key)
        }
        guard try counters.increment(key, limit: limit, now: now) != nil else { return window }
        return nil
    }
}
