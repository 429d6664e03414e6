import CustosCore
import Foundation

// MARK: - SingleUseTokenStore

extension SQLStore {
    public func issue(_ token: SingleUseToken) throws {
        do {
            try database.execute(
                """
                INSERT INTO single_use_tokens (purpose, digest, subject, payload, expires_at)
                VALUES (?, ?, ?, ?, ?)
                """,
                [.text(token.purpose), .blob(token.digest), .text(token.subject), .blob(token.payload),
                 .integer(SQLTime.milliseconds(token.expiresAt))]
            )
        } catch StoreError.duplicate {
            // The database's message would name the key; the digest stays out of logs.
            throw StoreError.duplicate("a single-use token with this purpose and digest already exists")
        }
    }

    public func consume(purpose: String, digest: Data, now: Date) throws -> SingleUseToken? {
        let rows = try database.query(
            """
            DELETE FROM single_use_tokens
            WHERE purpose = ? AND digest = ? AND expires_at > ?
            RETURNING subject, payload, expires_at
            """,
            [.text(purpose), .blob(digest), .integer(SQLTime.milliseconds(now))]
        )
        return try rows.first.map { try token(purpose: purpose, digest: digest, row: $0) }
    }

    public func consumeAny(purpose: String, subject: String, now: Date) throws -> SingleUseToken? {
        // Of two callers that pick the same row, the DELETE lets one have it.
        let rows = try database.query(
            """
            DELETE FROM single_use_tokens
            WHERE purpose = ? AND digest = (SELECT digest FROM single_use_tokens
                                            WHERE purpose = ? AND subject = ? AND expires_at > ?
                                            ORDER BY expires_at LIMIT 1)
            RETURNING digest, subject, payload, expires_at
            """,
            [.text(purpose), .text(purpose), .text(subject), .integer(SQLTime.milliseconds(now))]
        )
        return try rows.first.map {
            SingleUseToken(purpose: purpose, digest: try $0.data(0), subject: try $0.string(1), payload: try $0.data(2),
                           expiresAt: try $0.date(3))
        }
    }

    public func peek(purpose: String, digest: Data, now: Date) throws -> SingleUseToken? {
        let rows = try database.select(
            """
            SELECT subject, payload, expires_at FROM single_use_tokens
            WHERE purpose = ? AND digest = ? AND expires_at > ?
            """,
            [.text(purpose), .blob(digest), .integer(SQLTime.milliseconds(now))]
        )
        return try rows.first.map { try token(purpose: purpose, digest: digest, row: $0) }
    }

    @discardableResult
    public func revokeAll(purpose: String, subject: String) throws -> Int {
        try database.execute(
            "DELETE FROM single_use_tokens WHERE purpose = ? AND subject = ?",
            [.text(purpose), .text(subject)]
        )
    }

    @discardableResult
    public func purgeExpired(now: Date) throws -> Int {
        try database.execute(
            "DELETE FROM single_use_tokens WHERE expires_at <= ?",
            [.integer(SQLTime.milliseconds(now))]
        )
    }

    private func token(purpose: String, digest: Data, row: SQLRow) throws -> SingleUseToken {
        SingleUseToken(
            purpose: purpose,
            digest: digest,
            subject: try row.string(0),
            payload: try row.data(1),
            expiresAt: try row.date(2)
        )
    }
}
