/// Migration 10: the identity document images of document scans (workflow 7).
///
/// - One row per side (`front`, `back`) of a transaction; the image is AES-256-GCM ciphertext
///   under the template key `key_id` names, bound to its user, transaction and side.
/// - Deleting the user or the transaction deletes its images; housekeeping deletes them once
///   `expires_at` (the retention period) has passed.
/// - An ordinary rowid table in SQLite: rows hold whole images (up to megabytes), which
///   `WITHOUT ROWID` tables store poorly.
enum DocumentSchema {
    static let sqlite = """
        CREATE TABLE idv_documents (
            id             TEXT    NOT NULL PRIMARY KEY,
            transaction_id TEXT    NOT NULL REFERENCES idv_transactions (id) ON DELETE CASCADE,
            user_id        TEXT    NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            side           TEXT    NOT NULL,
            key_id         TEXT    NOT NULL,
            ciphertext     BLOB    NOT NULL,
            created_at     INTEGER NOT NULL,
            expires_at     INTEGER NOT NULL,
            UNIQUE (transaction_id, side)
        );
        CREATE INDEX idv_documents_user_id ON idv_documents (user_id);
        CREATE INDEX idv_documents_expires_at ON idv_documents (expires_at);
        """

    static let postgres = """
        CREATE TABLE idv_documents (
            id             TEXT COLLATE "C" NOT NULL PRIMARY KEY,
            transaction_id TEXT COLLATE "C" NOT NULL REFERENCES idv_transactions (id) ON DELETE CASCADE,
            user_id        TEXT COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            side           TEXT   NOT NULL,
            key_id         TEXT   NOT NULL,
            ciphertext     BYTEA  NOT NULL,
            created_at     BIGINT NOT NULL,
            expires_at     BIGINT NOT NULL,
            UNIQUE (transaction_id, side)
        );
        CREATE INDEX idv_documents_user_id ON idv_documents (user_id);
        CREATE INDEX idv_documents_expires_at ON idv_documents (expires_at);
        """
}
