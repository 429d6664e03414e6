/// Migration 11: step-up notifications, the webhook outbox, and CIBA requests and clients.
///
/// - A notification's actions, transaction details and number choices are JSON text; its
///   status changes once, from `pending`, by a compare-and-set.
/// - The outbox row of a final state is written in the same transaction as the state; a
///   worker leases due rows (`lease_owner`, `lease_until`) so that one node delivers each.
/// - Deleting the user deletes its notifications and their outbox rows.
enum NotificationSchema {
    static let sqlite = """
        CREATE TABLE notifications (
            id                     TEXT    NOT NULL PRIMARY KEY,
            user_id                TEXT    NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            api_key_id             TEXT    NOT NULL,
            subject                TEXT    NOT NULL,
            message                TEXT    NOT NULL,
            actions                TEXT    NOT NULL,
            details                TEXT,
            number                 INTEGER,
            number_choices         TEXT,
            callback_url           TEXT,
            status                 TEXT    NOT NULL,
            created_at             INTEGER NOT NULL,
            expires_at             INTEGER NOT NULL,
            chosen_action          TEXT,
            achieved_level         INTEGER,
            answered_at            INTEGER,
            step_up_transaction_id TEXT,
            signed_result          TEXT,
            ciba_ping              TEXT
        ) WITHOUT ROWID;
        CREATE INDEX notifications_user_status ON notifications (user_id, status, created_at);
        CREATE INDEX notifications_key_status ON notifications (api_key_id, status);
        CREATE INDEX notifications_status_expires ON notifications (status, expires_at);
        CREATE TABLE webhook_outbox (
            id              TEXT    NOT NULL PRIMARY KEY,
            notification_id TEXT    NOT NULL REFERENCES notifications (id) ON DELETE CASCADE,
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
            delivered_at    INTEGER
        ) WITHOUT ROWID;
        CREATE INDEX webhook_outbox_due ON webhook_outbox (state, next_attempt_at);
        CREATE INDEX webhook_outbox_notification ON webhook_outbox (notification_id, created_at);
        CREATE TABLE ciba_requests (
            request_digest  TEXT    NOT NULL PRIMARY KEY,
            notification_id TEXT    NOT NULL REFERENCES notifications (id) ON DELETE CASCADE,
            client_id       TEXT    NOT NULL,
            scope           TEXT    NOT NULL,
            poll_interval   INTEGER NOT NULL,
            last_polled_at  INTEGER,
            tokens_issued   INTEGER NOT NULL,
            created_at      INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE ciba_clients (
            client_id             TEXT    NOT NULL PRIMARY KEY,
            delivery_mode         TEXT    NOT NULL,
            notification_endpoint TEXT,
            updated_at            INTEGER NOT NULL
        ) WITHOUT ROWID;
        """

    static let postgres = """
        CREATE TABLE notifications (
            id                     TEXT COLLATE "C" NOT NULL PRIMARY KEY,
            user_id                TEXT COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            api_key_id             TEXT    NOT NULL,
            subject                TEXT    NOT NULL,
            message                TEXT    NOT NULL,
            actions                TEXT    NOT NULL,
            details                TEXT,
            number                 INTEGER,
            number_choices         TEXT,
            callback_url           TEXT,
            status                 TEXT    NOT NULL,
            created_at             BIGINT  NOT NULL,
            expires_at             BIGINT  NOT NULL,
            chosen_action          TEXT,
            achieved_level         INTEGER,
            answered_at            BIGINT,
            step_up_transaction_id TEXT,
            signed_result          TEXT,
            ciba_ping              TEXT
        );
        CREATE INDEX notifications_user_status ON notifications (user_id, status, created_at);
        CREATE INDEX notifications_key_status ON notifications (api_key_id, status);
        CREATE INDEX notifications_status_expires ON notifications (status, expires_at);
        CREATE TABLE webhook_outbox (
            id              TEXT COLLATE "C" NOT NULL PRIMARY KEY,
            notification_id TEXT COLLATE "C" NOT NULL REFERENCES notifications (id) ON DELETE CASCADE,
            api_key_id      TEXT    NOT NULL,
            url             TEXT    NOT NULL,
            body            BYTEA   NOT NULL,
            auth_header     TEXT,
            state           TEXT    NOT NULL,
            attempts        INTEGER NOT NULL,
            next_attempt_at BIGINT  NOT NULL,
            lease_owner     TEXT,
            lease_until     BIGINT,
            last_status     INTEGER,
            last_error      TEXT,
            created_at      BIGINT  NOT NULL,
            delivered_at    BIGINT
        );
        CREATE INDEX webhook_outbox_due ON webhook_outbox (state, next_attempt_at);
        CREATE INDEX webhook_outbox_notification ON webhook_outbox (notification_id, created_at);
        CREATE TABLE ciba_requests (
            request_digest  TEXT COLLATE "C" NOT NULL PRIMARY KEY,
            notification_id TEXT COLLATE "C" NOT NULL REFERENCES notifications (id) ON DELETE CASCADE,
            client_id       TEXT    NOT NULL,
            scope           TEXT    NOT NULL,
            poll_interval   INTEGER NOT NULL,
            last_polled_at  BIGINT,
            tokens_issued   INTEGER NOT NULL,
            created_at      BIGINT  NOT NULL
        );
        CREATE TABLE ciba_clients (
            client_id             TEXT COLLATE "C" NOT NULL PRIMARY KEY,
            delivery_mode         TEXT    NOT NULL,
            notification_endpoint TEXT,
            updated_at            BIGINT  NOT NULL
        );
        """
}
