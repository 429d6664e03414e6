/// Migration 4: IDV transactions, sealed face templates and the template key registry.
///
/// - A transaction's challenge and result are JSON text (they are read whole, never queried).
/// - Templates are AES-256-GCM ciphertext; `key_id` names the derived key that sealed them.
///   Template keys hold no key material: keys are derived from the master key by id.
/// - Deleting a user deletes its transactions and its template.
enum BiometricSchema {
    static let sqlite = """
        CREATE TABLE idv_transactions (
            id                  TEXT    NOT NULL PRIMARY KEY,
            user_id             TEXT    NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            workflow            INTEGER NOT NULL,
            reason              TEXT    NOT NULL,
            state               TEXT    NOT NULL,
            consent_version     TEXT,
            created_at          INTEGER NOT NULL,
            expires_at          INTEGER NOT NULL,
            challenge           TEXT,
            challenge_issued_at INTEGER,
            completed_at        INTEGER,
            result              TEXT
        ) WITHOUT ROWID;
        CREATE INDEX idv_transactions_user_id ON idv_transactions (user_id);
        CREATE TABLE biometric_templates (
            user_id         TEXT    NOT NULL PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
            key_id          TEXT    NOT NULL,
            ciphertext      BLOB    NOT NULL,
            model_id        TEXT    NOT NULL,
            quality         REAL    NOT NULL,
            workflow        INTEGER NOT NULL,
            consent_version TEXT    NOT NULL,
            consent_at      INTEGER NOT NULL,
            created_at      INTEGER NOT NULL,
            updated_at      INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX biometric_templates_key_id ON biometric_templates (key_id);
        CREATE TABLE template_keys (
            id         TEXT    NOT NULL PRIMARY KEY,
            created_at INTEGER NOT NULL,
            active     INTEGER NOT NULL
        ) WITHOUT ROWID;
        """

    static let postgres = """
        CREATE TABLE idv_transactions (
            id                  TEXT COLLATE "C" NOT NULL PRIMARY KEY,
            user_id             TEXT COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            workflow            INTEGER NOT NULL,
            reason              TEXT    NOT NULL,
            state               TEXT    NOT NULL,
            consent_version     TEXT,
            created_at          BIGINT  NOT NULL,
            expires_at          BIGINT  NOT NULL,
            challenge           TEXT,
            challenge_issued_at BIGINT,
            completed_at        BIGINT,
            result              TEXT
        );
        CREATE INDEX idv_transactions_user_id ON idv_transactions (user_id);
        CREATE TABLE biometric_templates (
            user_id         TEXT COLLATE "C" NOT NULL PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
            key_id          TEXT    NOT NULL,
            ciphertext      BYTEA   NOT NULL,
            model_id        TEXT    NOT NULL,
            quality         DOUBLE PRECISION NOT NULL,
            workflow        INTEGER NOT NULL,
            consent_version TEXT    NOT NULL,
            consent_at      BIGINT  NOT NULL,
            created_at      BIGINT  NOT NULL,
            updated_at      BIGINT  NOT NULL
        );
        CREATE INDEX biometric_templates_key_id ON biometric_templates (key_id);
        CREATE TABLE template_keys (
            id         TEXT    NOT NULL PRIMARY KEY,
            created_at BIGINT  NOT NULL,
            active     INTEGER NOT NULL
        );
        """
}
