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

    /// Deletes the row and its leases (the leases first, as every lease operation locks them
    /// before the counter): a reset counter reads 0 and starts again from 1.
    public func reset(_ key: String) throws {
        try atomically {
            try database.execute("DELETE FROM counter_leases WHERE key = ?", [.text(key)])
            try database.execute("DELETE FROM counters WHERE key = ?", [.text(key)])
        }
    }

    // MARK: Leases (CounterLeaseStore)

    public func takeLease(_ key: String, limit: Int64, now: Date, expiresAt: Date) throws -> Int64? {
        try atomically {
            let expired = try database.query("DELETE FROM counter_leases WHERE key = ? AND expires_at <= ? RETURNING id",
                                             [.text(key), .date(now)])
            try giveBack(Int64(expired.count), to: key)
            guard let used = try increment(key, limit: limit, now: now) else { return nil }
            try database.execute("INSERT INTO counter_leases (key, expires_at) VALUES (?, ?)", [.text(key), .date(expiresAt)])
            return used
        }
    }

    public func endLease(_ key: String, keepingCount: Bool, now: Date) throws {
        // The scalar subquery runs once; on PostgreSQL a lease that another transaction is
        // ending is skipped rather than waited for and then found gone.
        let skipLocked = database.dialect == .postgresql ? " FOR UPDATE SKIP LOCKED" : ""
        try atomically {
            let ended = try database.query(
                """
                DELETE FROM counter_leases
                WHERE id = (SELECT id FROM counter_leases WHERE key = ? ORDER BY expires_at, id LIMIT 1\(skipLocked))
                RETURNING id
                """, [.text(key)])
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
        }
    }

    @discardableResult
    public func reclaimExpiredLeases(now: Date) throws -> Int {
        try atomically {
            let keys = try database.query("DELETE FROM counter_leases WHERE expires_at <= ? RETURNING key", [.date(now)])
                .map { try $0.string(0) }
            let counts = Dictionary(keys.map { ($0, Int64(1)) }, uniquingKeysWith: +)
            for key in counts.keys.sorted() { try giveBack(counts[key] ?? 0, to: key) }
            return keys.count
        }
    }

    /// Takes `count` off `key`, never below 0.
    private func giveBack(_ count: Int64, to key: String) throws {
        guard count > 0 else { return }
        try database.execute("UPDATE counters SET value = CASE WHEN value > ? THEN value - ? ELSE 0 END WHERE key = ?",
                             [.integer(count), .integer(count), .text(key)])
    }

    public func purgeCounters(prefix: String, updatedBefore cutoff: Date) throws -> Int {
        // The length is ours, not input; as a literal it needs no integer type in the bind.
        try database.execute("DELETE FROM counters WHERE substr(key, 1, \(prefix.count)) = ? AND updated_at < ?",
                             [.text(prefix), .integer(SQLTime.milliseconds(cutoff))])
    }
}
