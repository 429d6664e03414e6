/// Migration 18: the relying parties' Shared Signals streams (one per API key), and the outbox
/// that already delivers notification webhooks carrying their Security Event Tokens too.
///
/// - A stream goes with its API key's id; deleting the stream deletes its undelivered events.
/// - An outbox row belongs to a notification or to a stream; `content_type` is what is POSTed.
///   SQLite cannot drop a NOT NULL, so its outbox is rebuilt with the rows it holds.
enum SignalSchema {
    static let sqlite = """
        CREATE TABLE ssf_streams (
            id               TEXT    NOT NULL PRIMARY KEY,
            api_key_id       TEXT    NOT NULL UNIQUE,
            endpoint_url     TEXT    NOT NULL,
            events_requested TEXT    NOT NULL,
            description      TEXT,
            created_at       INTEGER NOT NULL,
            updated_at       INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE webhook_outbox_next (
            id              TEXT    NOT NULL PRIMARY KEY,
            notification_id TEXT    REFERENCES notifications (id) ON DELETE CASCADE,
            api_key_id      TEXT    NOT NULL,
            url             TEXT    NOT NULL,
            body            BLOB    NOT NULL,
            auth_header     TEXT,
            state           TEXT    NOT NULL,
            attempts        INTEGER NOT NULL,
            next_attempt_at INTEGER NOT NULL,
            lease_owner     TEXT,
            lease_until     INTEGER,
            last_status     INTEGER,
            last_error      TEXT,
            created_at      INTEGER NOT NULL,
            delivered_at    INTEGER,
            stream_id       TEXT    REFERENCES ssf_streams (id) ON DELETE CASCADE,
            content_type    TEXT    NOT NULL DEFAULT 'application/json'
        ) WITHOUT ROWID;
        INSERT INTO webhook_outbox_next (id, notification_id, api_key_id, url, body, auth_header, state, attempts, next_attempt_at,
                                         lease_owner, lease_until, last_status, last_error, created_at, delivered_at)
            SELECT id, notification_id, api_key_id, url, body, auth_header, state, attempts, next_attempt_at,
                   lease_owner, lease_until, last_status, last_error, created_at, delivered_at FROM webhook_outbox;
        DROP TABLE webhook_outbox;
        ALTER TABLE webhook_outbox_next RENAME TO webhook_outbox;
        CREATE INDEX webhook_outbox_due ON webhook_outbox (state, next_attempt_at);
        CREATE INDEX webhook_outbox_notification ON webhook_outbox (notification_id, created_at);
        CREATE INDEX webhook_outbox_stream ON webhook_outbox (stream_id, created_at);
        """

    static let postgres = """
        CREATE TABLE ssf_streams (
            id               TEXT COLLATE "C" NOT NULL PRIMARY KEY,
            api_key_id       TEXT   NOT NULL UNIQUE,
            endpoint_url     TEXT   NOT NULL,
            events_requested TEXT   NOT NULL,
            description      TEXT,
            created_at       BIGINT NOT NULL,
            updated_at       BIGINT NOT NULL
        );
        ALTER TABLE webhook_outbox ALTER COLUMN notification_id DROP NOT NULL;
        ALTER TABLE webhook_outbox ADD COLUMN stream_id TEXT COLLATE "C" REFERENCES ssf_streams (id) ON DELETE CASCADE;
        ALTER TABLE webhook_outbox ADD COLUMN content_type TEXT NOT NULL DEFAULT 'application/json';
        CREATE INDEX webhook_outbox_stream ON webhook_outbox (stream_id, created_at);
        """
}
