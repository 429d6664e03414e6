/// Migration 12: OpenID Connect clients, the authorizations waiting for a device's assertion,
/// grants and the codes and refresh tokens issued from them, client assertion `jti`s, and the
/// devices' WebAuthn signature counter.
///
/// - Codes, refresh tokens and assertion `jti`s are stored by digest only (BLOB / BYTEA), as
///   single-use tokens are; a code or refresh token is spent by a compare-and-set on its
///   `redeemed_at` / `used_at`, and the spent row stays until it expires (reuse detection).
/// - A client's redirect URIs and scopes are JSON arrays; a pending authorization's request is
///   a JSON object (see `SQLStore+OIDC`).
/// - Deleting a client deletes its grants, and a grant its codes and refresh tokens; deleting
///   the user deletes its grants and pending authorizations.
/// - `encrypt_id_token` is an INTEGER 0 or 1 in both dialects, as other flags are.
enum OIDCSchema {
    static let sqlite = """
        CREATE TABLE oidc_clients (
            id             TEXT    NOT NULL PRIMARY KEY,
            name           TEXT    NOT NULL,
            kind           TEXT    NOT NULL,
            secret_digest  BLOB,
            redirect_uris  TEXT    NOT NULL,
            scopes         TEXT    NOT NULL,
            encryption_jwk TEXT,
            assertion_jwk  TEXT,
            created_at     INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE oidc_authorizations (
            id               TEXT    NOT NULL PRIMARY KEY,
            request          TEXT    NOT NULL,
            user_id          TEXT    NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            device_id        TEXT    NOT NULL,
            challenge_digest BLOB    NOT NULL,
            created_at       INTEGER NOT NULL,
            expires_at       INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX oidc_authorizations_user_id ON oidc_authorizations (user_id);
        CREATE INDEX oidc_authorizations_expires_at ON oidc_authorizations (expires_at);
        CREATE TABLE oidc_grants (
            id               TEXT    NOT NULL PRIMARY KEY,
            client_id        TEXT    NOT NULL REFERENCES oidc_clients (id) ON DELETE CASCADE,
            user_id          TEXT    NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            device_id        TEXT    NOT NULL,
            scope            TEXT    NOT NULL,
            nonce            TEXT,
            auth_time        INTEGER NOT NULL,
            level            INTEGER NOT NULL,
            encrypt_id_token INTEGER NOT NULL,
            created_at       INTEGER NOT NULL,
            revoked_at       INTEGER
        ) WITHOUT ROWID;
        CREATE INDEX oidc_grants_client_id ON oidc_grants (client_id);
        CREATE INDEX oidc_grants_user_id ON oidc_grants (user_id);
        CREATE INDEX oidc_grants_created_at ON oidc_grants (created_at);
        CREATE TABLE oidc_codes (
            code_digest    BLOB    NOT NULL PRIMARY KEY,
            grant_id       TEXT    NOT NULL REFERENCES oidc_grants (id) ON DELETE CASCADE,
            redirect_uri   TEXT    NOT NULL,
            code_challenge TEXT,
            expires_at     INTEGER NOT NULL,
            redeemed_at    INTEGER
        ) WITHOUT ROWID;
        CREATE INDEX oidc_codes_grant_id ON oidc_codes (grant_id);
        CREATE INDEX oidc_codes_expires_at ON oidc_codes (expires_at);
        CREATE TABLE oidc_refresh_tokens (
            token_digest BLOB    NOT NULL PRIMARY KEY,
            grant_id     TEXT    NOT NULL REFERENCES oidc_grants (id) ON DELETE CASCADE,
            expires_at   INTEGER NOT NULL,
            used_at      INTEGER
        ) WITHOUT ROWID;
        CREATE INDEX oidc_refresh_tokens_grant_id ON oidc_refresh_tokens (grant_id);
        CREATE INDEX oidc_refresh_tokens_expires_at ON oidc_refresh_tokens (expires_at);
        CREATE TABLE oidc_client_assertions (
            jti_digest BLOB    NOT NULL PRIMARY KEY,
            expires_at INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX oidc_client_assertions_expires_at ON oidc_client_assertions (expires_at);
        ALTER TABLE devices ADD COLUMN sign_count INTEGER NOT NULL DEFAULT 0;
        """

    static let postgres = """
        CREATE TABLE oidc_clients (
            id             TEXT COLLATE "C" NOT NULL PRIMARY KEY,
            name           TEXT    NOT NULL,
            kind           TEXT    NOT NULL,
            secret_digest  BYTEA,
            redirect_uris  TEXT    NOT NULL,
            scopes         TEXT    NOT NULL,
            encryption_jwk TEXT,
            assertion_jwk  TEXT,
            created_at     BIGINT  NOT NULL
        );
        CREATE TABLE oidc_authorizations (
            id               TEXT COLLATE "C" NOT NULL PRIMARY KEY,
            request          TEXT    NOT NULL,
            user_id          TEXT COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            device_id        TEXT    NOT NULL,
            challenge_digest BYTEA   NOT NULL,
            created_at       BIGINT  NOT NULL,
            expires_at       BIGINT  NOT NULL
        );
        CREATE INDEX oidc_authorizations_user_id ON oidc_authorizations (user_id);
        CREATE INDEX oidc_authorizations_expires_at ON oidc_authorizations (expires_at);
        CREATE TABLE oidc_grants (
            id               TEXT COLLATE "C" NOT NULL PRIMARY KEY,
            client_id        TEXT COLLATE "C" NOT NULL REFERENCES oidc_clients (id) ON DELETE CASCADE,
            user_id          TEXT COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            device_id        TEXT    NOT NULL,
            scope            TEXT    NOT NULL,
            nonce            TEXT,
            auth_time        BIGINT  NOT NULL,
            level            INTEGER NOT NULL,
            encrypt_id_token INTEGER NOT NULL,
            created_at       BIGINT  NOT NULL,
            revoked_at       BIGINT
        );
        CREATE INDEX oidc_grants_client_id ON oidc_grants (client_id);
        CREATE INDEX oidc_grants_user_id ON oidc_grants (user_id);
        CREATE INDEX oidc_grants_created_at ON oidc_grants (created_at);
        CREATE TABLE oidc_codes (
            code_digest    BYTEA   NOT NULL PRIMARY KEY,
            grant_id       TEXT COLLATE "C" NOT NULL REFERENCES oidc_grants (id) ON DELETE CASCADE,
            redirect_uri   TEXT    NOT NULL,
            code_challenge TEXT,
            expires_at     BIGINT  NOT NULL,
            redeemed_at    BIGINT
        );
        CREATE INDEX oidc_codes_grant_id ON oidc_codes (grant_id);
        CREATE INDEX oidc_codes_expires_at ON oidc_codes (expires_at);
        CREATE TABLE oidc_refresh_tokens (
            token_digest BYTEA   NOT NULL PRIMARY KEY,
            grant_id     TEXT COLLATE "C" NOT NULL REFERENCES oidc_grants (id) ON DELETE CASCADE,
            expires_at   BIGINT  NOT NULL,
            used_at      BIGINT
        );
        CREATE INDEX oidc_refresh_tokens_grant_id ON oidc_refresh_tokens (grant_id);
        CREATE INDEX oidc_refresh_tokens_expires_at ON oidc_refresh_tokens (expires_at);
        CREATE TABLE oidc_client_assertions (
            jti_digest BYTEA  NOT NULL PRIMARY KEY,
            expires_at BIGINT NOT NULL
        );
        CREATE INDEX oidc_client_assertions_expires_at ON oidc_client_assertions (expires_at);
        ALTER TABLE devices ADD COLUMN sign_count BIGINT NOT NULL DEFAULT 0;
        """
}
