import CustosCore
import Foundation

// MARK: - CounterStore

extension SQLStore {
    /// One atomic upsert: inserts the counter at 1, or adds one while it is below `limit`;
    /// `RETURNING` yields no row when the `WHERE` of the update refused it. A `limit` of 0 or
    /// less means the counter is always at its limit: nil, nothing written.
    public func increment(_ key: String, limit: Int64, now: Date) throws -> Int64? {
        guard limit > 0 else { return nil }
        let rows = try database.query(
            """
            INSERT INTO counters (key, value, updated_at) VALUES (?, 1, ?)
            ON CONFLICT (key) DO UPDATE SET value = counters.value + 1, updated_at = excluded.updated_at
            WHERE counters.value < ?
            RETURNING value
            """,
            [.text(key), .integer(SQLTime.milliseconds(now)), .integer(limit)]
        )
        return try rows.first.map { try $0.int64(0) }
    }

    public func value(_ key: String) throws -> Int64 {
        let rows = try database.select("SELECT value FROM counters WHERE key = ?", [.text(key)])
        return try rows.first?.int64(0) ?? 0
    }

    public func lastIncrement(_ key: String) throws -> Date? {
        try database.select("SELECT updated_at FROM counters WHERE key = ?", [.text(key)]).first?.date(0)
    }

    public func decrement(_ key: String) throws {
        try database.execute("UPDATE counters SET value = value - 1 WHERE key = ? AND value > 0", [.text(key)])
    }

    /// Deletes the row and its leases: a reset counter reads 0 and starts again from 1.
    public func reset(_ key: String) throws {
        try atomically {
            try lockKey(key)
            try database.execute("DELETE FROM counter_leases WHERE key = ?", [.text(key)])
            try database.execute("DELETE FROM counters WHERE key = ?", [.text(key)])
        }
    }

    // MARK: Leases (CounterLeaseStore)

    /// Every change of a leased counter first takes the key's lock for its transaction (on
    /// PostgreSQL; SQLite has one writer): its lease rows and its counter row then change as one,
    /// in one order, and nothing commits between a reset's two deletes.
    private func lockKey(_ key: String) throws {
        guard database.dialect == .postgresql else { return }
        _ = try database.query("SELECT 1 FROM pg_advisory_xact_lock(hashtextextended(?, 0))", [.text(key)])
    }

    public func takeLease(_ key: String, limit: Int64, now: Date, expiresAt: Date) throws -> Int64? {
        try atomically {
            try lockKey(key)
            try reclaim(key, now: now)
            guard let used = try increment(key, limit: limit, now: now) else { return nil }
            try database.execute("INSERT INTO counter_leases (key, expires_at) VALUES (?, ?)", [.text(key), .date(expiresAt)])
            return used
        }
    }

    @discardableResult
    public func endLease(_ key: String, keepingCount: Bool, now: Date) throws -> Int64? {
        try atomically {
            try lockKey(key)
            let ended = try database.query(
                "DELETE FROM counter_leases WHERE id = (SELECT id FROM counter_leases WHERE key = ? ORDER BY expires_at, id LIMIT 1) RETURNING id",
                [.text(key)])
            switch (ended.isEmpty, keepingCount) {
            case (false, false):
                try decrement(key)
            case (true, true):
                try database.execute(
                    """
                    INSERT INTO counters (key, value, updated_at) VALUES (?, 1, ?)
                    ON CONFLICT (key) DO UPDATE SET value = counters.value + 1, updated_at = excluded.updated_at
                    """, [.text(key), .integer(SQLTime.milliseconds(now))])
            default:
                break
            }
            return ended.isEmpty ? try value(key) : nil
        }
    }

    public func liveLeases(_ key: String, now: Date) throws -> Int {
        try database.select("SELECT count(*) FROM counter_leases WHERE key = ? AND expires_at > ?", [.text(key), .date(now)])
            .first.map { try $0.int(0) } ?? 0
    }

    public func isSpent(_ key: String, limit: Int64, now: Date) throws -> Bool {
        try !database.select(
            """
            SELECT 1 FROM counters WHERE key = ? AND value >= ?
            AND NOT EXISTS (SELECT 1 FROM counter_leases WHERE key = ? AND expires_at > ?)
            """, [.text(key), .integer(limit), .text(key), .date(now)]).isEmpty
    }

    @discardableResult
    public func reclaimExpiredLeases(now: Date) throws -> Int {
        // A key at a time, each in its own transaction under the key's lock, as a take would.
        var keys = try database.select("SELECT key FROM counter_leases WHERE expires_at <= ? ORDER BY expires_at LIMIT 1000", [.date(now)])
            .map { try $0.string(0) }
        keys = Array(Set(keys)).sorted()
        return try keys.reduce(0) { total, key in
            total + (try atomically {
                try lockKey(key)
                return try reclaim(key, now: now)
            })
        }
    }

    /// Ends `key`'s expired leases, giving their counts back (never below 0); how many.
    @discardableResult
    private func reclaim(_ key: String, now: Date) throws -> Int {
        let expired = try database.query("DELETE FROM counter_leases WHERE key = ? AND expires_at <= ? RETURNING id", [.text(key), .date(now)])
        if !expired.isEmpty {
            try database.execute("UPDATE counters SET value = CASE WHEN value > ? THEN value - ? ELSE 0 END WHERE key = ?",
                                 [.integer(Int64(expired.count)), .integer(Int64(expired.count)), .text(key)])
        }
        return expired.count
    }

    public func purgeCounters(prefix: String, updatedBefore cutoff: Date) throws -> Int {
        // The length is ours, not input; as a literal it needs no integer type in the bind.
        try database.execute("DELETE FROM counters WHERE substr(key, 1, \(prefix.count)) = ? AND updated_at < ?",
                             [.text(prefix), .integer(SQLTime.milliseconds(cutoff))])
    }
}
