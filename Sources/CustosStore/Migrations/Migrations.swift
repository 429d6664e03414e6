/// One schema change, written once per dialect. Versions start at 1 and increase by one;
/// a released migration is never edited, only followed by a new one.
struct Migration: Sendable {
    let version: Int
    let name: String
    let sqlite: String
    let postgres: String

    func sql(for dialect: SQLDialect) -> String {
        switch dialect {
        case .sqlite: return sqlite
        case .postgresql: return postgres
        }
    }
}

/// Every migration the code knows, in order.
enum Migrations {
    static let all: [Migration] = [
        Migration(
            version: 1,
            name: "single_use_tokens and counters",
            sqlite: """
                CREATE TABLE single_use_tokens (
                    purpose    TEXT    NOT NULL,
                    digest     BLOB    NOT NULL,
                    subject    TEXT    NOT NULL,
                    payload    BLOB    NOT NULL,
                    expires_at INTEGER NOT NULL,
                    PRIMARY KEY (purpose, digest)
                ) WITHOUT ROWID;
                CREATE INDEX single_use_tokens_expires_at ON single_use_tokens (expires_at);
                CREATE INDEX single_use_tokens_purpose_subject ON single_use_tokens (purpose, subject);
                CREATE TABLE counters (
                    key        TEXT    NOT NULL PRIMARY KEY,
                    value      INTEGER NOT NULL,
                    updated_at INTEGER NOT NULL
                ) WITHOUT ROWID;
                """,
            postgres: """
                CREATE TABLE single_use_tokens (
                    purpose    TEXT   NOT NULL,
                    digest     BYTEA  NOT NULL,
                    subject    TEXT   NOT NULL,
                    payload    BYTEA  NOT NULL,
                    expires_at BIGINT NOT NULL,
                    PRIMARY KEY (purpose, digest)
                );
                CREATE INDEX single_use_tokens_expires_at ON single_use_tokens (expires_at);
                CREATE INDEX single_use_tokens_purpose_subject ON single_use_tokens (purpose, subject);
                CREATE TABLE counters (
                    key        TEXT   NOT NULL PRIMARY KEY,
                    value      BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL
                );
                """
        ),
        Migration(
            version: 2,
            name: "users, devices, sessions and api_keys",
            sqlite: IdentitySchema.sqlite,
            postgres: IdentitySchema.postgres
        ),
        Migration(
            version: 3,
            name: "audit_events",
            sqlite: AuditSchema.sqlite,
            postgres: AuditSchema.postgres
        ),
        Migration(
            version: 4,
            name: "idv_transactions, biometric_templates and template_keys",
            sqlite: BiometricSchema.sqlite,
            postgres: BiometricSchema.postgres
        ),
        Migration(
            version: 5,
            name: "single_use_tokens indexed by subject first",
            // Deleting a user removes its tokens by subject alone; (subject, purpose) serves that
            // and revoking one purpose of a subject, where (purpose, subject) served only the latter.
            sqlite: """
                DROP INDEX single_use_tokens_purpose_subject;
                CREATE INDEX single_use_tokens_subject_purpose ON single_use_tokens (subject, purpose);
                """,
            postgres: """
                DROP INDEX single_use_tokens_purpose_subject;
                CREATE INDEX single_use_tokens_subject_purpose ON single_use_tokens (subject, purpose);
                """
        ),
        Migration(
            version: 6,
            name: "idv_transactions.replaces_template",
            // Whether the enrolment was authorised (recent match or relying-party grant) to
            // replace an existing template.
            sqlite: "ALTER TABLE idv_transactions ADD COLUMN replaces_template INTEGER NOT NULL DEFAULT 0;",
            postgres: "ALTER TABLE idv_transactions ADD COLUMN replaces_template INTEGER NOT NULL DEFAULT 0;"
        ),
        Migration(
            version: 7,
            name: "frame_memories",
            sqlite: """
                CREATE TABLE frame_memories (
                    id         TEXT    NOT NULL PRIMARY KEY,
                    user_id    TEXT    NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    key_id     TEXT    NOT NULL,
                    ciphertext BLOB    NOT NULL,
                    created_at INTEGER NOT NULL,
                    expires_at INTEGER NOT NULL
                ) WITHOUT ROWID;
                CREATE INDEX frame_memories_user_id ON frame_memories (user_id, created_at);
                CREATE INDEX frame_memories_expires_at ON frame_memories (expires_at);
                """,
            postgres: """
                CREATE TABLE frame_memories (
                    id         TEXT COLLATE "C" NOT NULL PRIMARY KEY,
                    user_id    TEXT COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    key_id     TEXT   NOT NULL,
                    ciphertext BYTEA  NOT NULL,
                    created_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL
                );
                CREATE INDEX frame_memories_user_id ON frame_memories (user_id, created_at);
                CREATE INDEX frame_memories_expires_at ON frame_memories (expires_at);
                """
        ),
        Migration(
            version: 8,
            name: "signing_keys and idv_transactions.rp_nonce",
            sqlite: """
                CREATE TABLE signing_keys (
                    kid          TEXT    NOT NULL PRIMARY KEY,
                    sealed_key   BLOB    NOT NULL,
                    public_jwk   TEXT    NOT NULL,
                    created_at   INTEGER NOT NULL,
                    activates_at INTEGER NOT NULL,
                    retires_at   INTEGER
                ) WITHOUT ROWID;
                ALTER TABLE idv_transactions ADD COLUMN rp_nonce TEXT;
                """,
            postgres: """
                CREATE TABLE signing_keys (
                    kid          TEXT COLLATE "C" NOT NULL PRIMARY KEY,
                    sealed_key   BYTEA  NOT NULL,
                    public_jwk   TEXT   NOT NULL,
                    created_at   BIGINT NOT NULL,
                    activates_at BIGINT NOT NULL,
                    retires_at   BIGINT
                );
                ALTER TABLE idv_transactions ADD COLUMN rp_nonce TEXT;
                """
        ),
        Migration(
            version: 9,
            name: "server_metadata",
            // Facts about the data itself, such as the id of the master key it is sealed with.
            sqlite: "CREATE TABLE server_metadata (name TEXT NOT NULL PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;",
            postgres: "CREATE TABLE server_metadata (name TEXT COLLATE \"C\" NOT NULL PRIMARY KEY, value TEXT NOT NULL);"
        ),
        Migration(
            version: 10,
            name: "idv_documents",
            sqlite: DocumentSchema.sqlite,
            postgres: DocumentSchema.postgres
        ),
        Migration(
            version: 11,
            name: "notifications, webhook_outbox, ciba_requests and ciba_clients",
            sqlite: NotificationSchema.sqlite,
            postgres: NotificationSchema.postgres
        ),
        Migration(
            version: 12,
            name: "oidc_clients, oidc_authorizations, oidc_grants, oidc_codes, oidc_refresh_tokens, oidc_client_assertions; devices.sign_count",
            sqlite: OIDCSchema.sqlite,
            postgres: OIDCSchema.postgres
        ),
        Migration(
            version: 13,
            name: "users.created_by",
            // The API key that created the user: the relying party that reads its verifications.
            sqlite: "ALTER TABLE users ADD COLUMN created_by TEXT;",
            postgres: "ALTER TABLE users ADD COLUMN created_by TEXT;"
        ),
        Migration(
            version: 14,
            name: "audit_events.actor",
            // The event's `actor` detail, copied beside it for `audit list --actor` (not hashed:
            // the detail itself is, in the chain).
            sqlite: "ALTER TABLE audit_events ADD COLUMN actor TEXT; CREATE INDEX audit_events_actor ON audit_events (actor, sequence);",
            postgres: "ALTER TABLE audit_events ADD COLUMN actor TEXT; CREATE INDEX audit_events_actor ON audit_events (actor, sequence);"
        ),
        Migration(
            version: 15,
            name: "ciba_requests.revoked_at",
            // The CIBA tokens' revocation (RFC 7009, or the user's); the index finds a user's requests.
            sqlite: "ALTER TABLE ciba_requests ADD COLUMN revoked_at INTEGER; CREATE INDEX ciba_requests_notification ON ciba_requests (notification_id);",
            postgres: "ALTER TABLE ciba_requests ADD COLUMN revoked_at BIGINT; CREATE INDEX ciba_requests_notification ON ciba_requests (notification_id);"
        ),
        Migration(
            version: 16,
            name: "devices.bound_by, devices.bound_from; notifications.answered_by, without number_choices",
            // How each device was bound and from where (devices bound earlier: 'unrecorded'); which
            // device answered a notification (the approver of a new device); number matching is typed.
            sqlite: """
                ALTER TABLE devices ADD COLUMN bound_by TEXT NOT NULL DEFAULT 'unrecorded';
                ALTER TABLE devices ADD COLUMN bound_from TEXT;
                ALTER TABLE notifications ADD COLUMN answered_by TEXT;
                ALTER TABLE notifications DROP COLUMN number_choices;
                """,
            postgres: """
                ALTER TABLE devices ADD COLUMN bound_by TEXT NOT NULL DEFAULT 'unrecorded';
                ALTER TABLE devices ADD COLUMN bound_from TEXT;
                ALTER TABLE notifications ADD COLUMN answered_by TEXT;
                ALTER TABLE notifications DROP COLUMN number_choices;
                """
        ),
        Migration(
            version: 17,
            name: "oidc_clients.id_token_alg",
            // How a client's ID tokens are signed (id_token_signed_response_alg): ES256 or RS256.
            sqlite: "ALTER TABLE oidc_clients ADD COLUMN id_token_alg TEXT NOT NULL DEFAULT 'ES256';",
            postgres: "ALTER TABLE oidc_clients ADD COLUMN id_token_alg TEXT NOT NULL DEFAULT 'ES256';"
        ),
        Migration(
            version: 18,
            name: "ssf_streams; webhook_outbox.stream_id, content_type, notification_id optional",
            sqlite: SignalSchema.sqlite,
            postgres: SignalSchema.postgres
        ),
        Migration(
            version: 19,
            name: "users (created_by, id) index",
            // A relying party's user list pages through the users its key created, by id.
            sqlite: "CREATE INDEX users_created_by ON users (created_by, id);",
            postgres: "CREATE INDEX users_created_by ON users (created_by, id);"
        ),
        Migration(
            version: 20,
            name: "counters owner index",
            // Deleting a user deletes its counters, those whose key ends in ":<id>" (attempts,
            // throttles): the key's last segment (user ids hold no ':'), indexed as an expression,
            // which `SQLStore.counterOwner` must repeat exactly for the index to serve.
            sqlite: "CREATE INDEX counters_owner ON counters (\(SQLStore.counterOwner(.sqlite)));",
            postgres: "CREATE INDEX counters_owner ON counters ((\(SQLStore.counterOwner(.postgresql))));"
        ),
        Migration(
            version: 21,
            name: "indexes of the notification and security-event sweeps",
            // Housekeeping deletes, every minute, notifications closed (or expired) longer ago than
            // the retention period and security events long sent: read by these instead of whole
            // tables that hold 90 days of every user's approvals. `purgeClosedNotifications`
            // repeats the expression and the condition exactly, for the planners to use them.
            sqlite: """
                CREATE INDEX notifications_closed_at ON notifications (COALESCE(answered_at, expires_at));
                CREATE INDEX webhook_outbox_sent_events ON webhook_outbox (created_at) WHERE stream_id IS NOT NULL AND state <> 'pending';
                """,
            postgres: """
                CREATE INDEX notifications_closed_at ON notifications ((COALESCE(answered_at, expires_at)));
                CREATE INDEX webhook_outbox_sent_events ON webhook_outbox (created_at) WHERE stream_id IS NOT NULL AND state <> 'pending';
                """
        ),
        Migration(
            version: 22,
            name: "users.password_must_change",
            // The relying party expired the password (`POST /v1/users/{id}/expire-password`): 110
            // at the next password check whatever its age, until a new one is set. A flag, not a
            // password_changed_at moved back, which would revive grants an earlier change ended.
            sqlite: "ALTER TABLE users ADD COLUMN password_must_change INTEGER NOT NULL DEFAULT 0;",
            postgres: "ALTER TABLE users ADD COLUMN password_must_change INTEGER NOT NULL DEFAULT 0;"
        ),
        Migration(
            version: 23,
            name: "devices.probation_until",
            // A device bound or confirmed without another bound device's approval (a registration
            // code, a face match) is on probation until then: no password change, no unbinding or
            // approving devices, no template change. Null: none (every device bound before).
            sqlite: "ALTER TABLE devices ADD COLUMN probation_until INTEGER;",
            postgres: "ALTER TABLE devices ADD COLUMN probation_until BIGINT;"
        ),
        Migration(
            version: 24,
            name: "counter_leases",
            // The counts that tries being judged hold (an attempt taken before a password or a
            // face is judged), each until it expires: a process that dies mid-try leaves a lease
            // whose count comes back by itself, not a count held for ever.
            sqlite: """
                CREATE TABLE counter_leases (
                    id         INTEGER PRIMARY KEY,
                    key        TEXT    NOT NULL,
                    expires_at INTEGER NOT NULL
                );
                CREATE INDEX counter_leases_key ON counter_leases (key, expires_at);
                CREATE INDEX counter_leases_expires_at ON counter_leases (expires_at);
                """,
            postgres: """
                CREATE TABLE counter_leases (
                    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    key        TEXT   NOT NULL,
                    expires_at BIGINT NOT NULL
                );
                CREATE INDEX counter_leases_key ON counter_leases (key, expires_at);
                CREATE INDEX counter_leases_expires_at ON counter_leases (expires_at);
                """
        ),
        Migration(
            version: 25,
            name: "users.claims",
            // The standard OpenID claims the relying party states about the user, as a JSON
            // object (`UserClaims`); null: none. On the user's row, so it goes with the user.
            sqlite: "ALTER TABLE users ADD COLUMN claims TEXT;",
            postgres: "ALTER TABLE users ADD COLUMN claims TEXT;"
        ),
        Migration(
            version: 26,
            name: "oidc_clients.post_logout_redirect_uris",
            // Where a client may send the browser after RP-Initiated Logout (a JSON array,
            // compared exactly); clients registered before have none.
            sqlite: "ALTER TABLE oidc_clients ADD COLUMN post_logout_redirect_uris TEXT NOT NULL DEFAULT '[]';",
            postgres: "ALTER TABLE oidc_clients ADD COLUMN post_logout_redirect_uris TEXT NOT NULL DEFAULT '[]';"
        ),
    ]

    static var latestVersion: Int { all.last?.version ?? 0 }
}
