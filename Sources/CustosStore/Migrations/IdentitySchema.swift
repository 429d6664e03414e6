/// Migration 2: users, the devices bound to them, the sessions of those devices, and API keys.
///
/// - Dates are `Int64` milliseconds since 1970 (see `SQLTime`), digests are BLOB / BYTEA,
///   enum raw values (`User.Status`, `APIKey.Scope`) are text with no CHECK constraint, so
///   a value this program does not know reads back as `StoreError.failure`, not a crash.
/// - Deleting a user cascades to its devices and sessions; deleting a device cascades to its
///   sessions (SQLite: `PRAGMA foreign_keys=ON` is set on every connection).
/// - PostgreSQL: user ids use the "C" collation, so `ORDER BY id` and keyset paging
///   (`id > ?`) follow byte order, as SQLite's BINARY collation does, whatever the
///   database's locale.
enum IdentitySchema {
    static let sqlite = """
        CREATE TABLE users (
            id                  TEXT    NOT NULL PRIMARY KEY,
            status              TEXT    NOT NULL,
            created_at          INTEGER NOT NULL,
            password_hash       TEXT,
            password_changed_at INTEGER,
            locked_until        INTEGER,
            lockout_count       INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE devices (
            id             TEXT    NOT NULL PRIMARY KEY,
            user_id        TEXT    NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            name           TEXT    NOT NULL,
            public_key_jwk TEXT    NOT NULL,
            key_thumbprint TEXT    NOT NULL UNIQUE,
            created_at     INTEGER NOT NULL,
            last_used_at   INTEGER,
            password_verified_at INTEGER,
            revoked_at     INTEGER
        );
        CREATE INDEX devices_user_id ON devices (user_id);
        CREATE TABLE sessions (
            id           TEXT    NOT NULL PRIMARY KEY,
            token_digest BLOB    NOT NULL UNIQUE,
            user_id      TEXT    NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            device_id    TEXT    NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
            created_at   INTEGER NOT NULL,
            last_seen_at INTEGER NOT NULL,
            expires_at   INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX sessions_user_id ON sessions (user_id);
        CREATE INDEX sessions_device_id ON sessions (device_id);
        CREATE TABLE api_keys (
            id         TEXT    NOT NULL PRIMARY KEY,
            scope      TEXT    NOT NULL,
            label      TEXT    NOT NULL,
            digest     BLOB    NOT NULL UNIQUE,
            created_at INTEGER NOT NULL,
            revoked_at INTEGER
        ) WITHOUT ROWID;
        """

    static let postgres = """
        CREATE TABLE users (
            id                  TEXT COLLATE "C" NOT NULL PRIMARY KEY,
            status              TEXT   NOT NULL,
            created_at          BIGINT NOT NULL,
            password_hash       TEXT,
            password_changed_at BIGINT,
            locked_until        BIGINT,
            lockout_count       BIGINT NOT NULL
        );
        CREATE TABLE devices (
            id             TEXT   NOT NULL PRIMARY KEY,
            user_id        TEXT COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            name           TEXT   NOT NULL,
            public_key_jwk TEXT   NOT NULL,
            key_thumbprint TEXT   NOT NULL UNIQUE,
            created_at     BIGINT NOT NULL,
            last_used_at   BIGINT,
            password_verified_at BIGINT,
            revoked_at     BIGINT
        );
        CREATE INDEX devices_user_id ON devices (user_id);
        CREATE TABLE sessions (
            id           TEXT   NOT NULL PRIMARY KEY,
            token_digest BYTEA  NOT NULL UNIQUE,
            user_id      TEXT COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            device_id    TEXT   NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
            created_at   BIGINT NOT NULL,
            last_seen_at BIGINT NOT NULL,
            expires_at   BIGINT NOT NULL
        );
        CREATE INDEX sessions_user_id ON sessions (user_id);
        CREATE INDEX sessions_device_id ON sessions (device_id);
        CREATE TABLE api_keys (
            id         TEXT   NOT NULL PRIMARY KEY,
            scope      TEXT   NOT NULL,
            label      TEXT   NOT NULL,
            digest     BYTEA  NOT NULL UNIQUE,
            created_at BIGINT NOT NULL,
            revoked_at BIGINT
        );
        """
}
