/// Migration 3: the append-only, hash-chained audit trail (see `AuditTrail`).
///
/// - `sequence` is assigned by the appender (1, 2, 3, … without gaps) while it holds the
///   chain's lock, so it is a plain key, not an auto-increment.
/// - No foreign key to `users`: the audit outlives deleted users.
/// - `details` is a JSON object of strings; the hashes are BLOB / BYTEA of 32 bytes.
/// - The indexes serve the per-user and per-transaction listings in sequence order.
enum AuditSchema {
    static let sqlite = """
        CREATE TABLE audit_events (
            sequence       INTEGER NOT NULL PRIMARY KEY,
            occurred_at    INTEGER NOT NULL,
            kind           TEXT    NOT NULL,
            user_id        TEXT,
            transaction_id TEXT,
            details        TEXT    NOT NULL,
            previous_hash  BLOB    NOT NULL,
            hash           BLOB    NOT NULL
        );
        CREATE INDEX audit_events_user_id ON audit_events (user_id, sequence);
        CREATE INDEX audit_events_transaction_id ON audit_events (transaction_id, sequence);
        """

    static let postgres = """
        CREATE TABLE audit_events (
            sequence       BIGINT NOT NULL PRIMARY KEY,
            occurred_at    BIGINT NOT NULL,
            kind           TEXT   NOT NULL,
            user_id        TEXT,
            transaction_id TEXT,
            details        TEXT   NOT NULL,
            previous_hash  BYTEA  NOT NULL,
            hash           BYTEA  NOT NULL
        );
        CREATE INDEX audit_events_user_id ON audit_events (user_id, sequence);
        CREATE INDEX audit_events_transaction_id ON audit_events (transaction_id, sequence);
        """
}
