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

    /// Deletes the row: a reset counter reads 0 and starts again from 1.
    public func reset(_ key: String) throws {
        try database.execute("DELETE FROM counters WHERE key = ?", [.text(key)])
    }

    public func purgeCounters(prefix: String, updatedBefore cutoff: Date) throws -> Int {
        // The length is ours, not input; as a literal it needs no integer type in the bind.
        try database.execute("DELETE FROM counters WHERE substr(key, 1, \(prefix.count)) = ? AND updated_at < ?",
                             [.text(prefix), .integer(SQLTime.milliseconds(cutoff))])
    }
}
