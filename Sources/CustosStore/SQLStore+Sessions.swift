import CustosCore
import Foundation

// MARK: - SessionStore

extension SQLStore: SessionStore {
    /// The columns every session query selects, in the order `session(from:)` reads them.
    private static let sessionColumns = "id, token_digest, user_id, device_id, created_at, last_seen_at, expires_at"

    /// Throws `StoreError.duplicate` when the id or the token digest exists, and
    /// `StoreError.failure` when the user or the device does not exist (foreign keys). The
    /// device's revocation is not checked here.
    public func createSession(_ session: Session) throws {
        do {
            try database.execute(
                "INSERT INTO sessions (\(Self.sessionColumns)) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    .text(session.id), .blob(session.tokenDigest), .text(session.userID), .text(session.deviceID),
                    .date(session.createdAt), .date(session.lastSeenAt), .date(session.expiresAt),
                ]
            )
        } catch StoreError.duplicate {
            // The database's message would name the key; the digest stays out of logs.
            throw StoreError.duplicate("a session with this id or token digest already exists")
        }
    }

    public func session(tokenDigest: Data) throws -> Session? {
        let rows = try database.select(
            "SELECT \(Self.sessionColumns) FROM sessions WHERE token_digest = ?",
            [.blob(tokenDigest)]
        )
        return try rows.first.map(Self.session(from:))
    }

    /// Newest first; sessions created in the same millisecond in descending id order.
    public func sessions(userID: String) throws -> [Session] {
        let rows = try database.select(
            "SELECT \(Self.sessionColumns) FROM sessions WHERE user_id = ? ORDER BY created_at DESC, id DESC",
            [.text(userID)]
        )
        return try rows.map(Self.session(from:))
    }

    /// Sets `lastSeenAt`; a session that does not exist is ignored.
    public func touchSession(id: String, at: Date) throws {
        try database.execute("UPDATE sessions SET last_seen_at = ? WHERE id = ?", [.date(at), .text(id)])
    }

    @discardableResult
    public func deleteSession(id: String) throws -> Bool {
        try database.execute("DELETE FROM sessions WHERE id = ?", [.text(id)]) > 0
    }

    @discardableResult
    public func deleteSessions(userID: String) throws -> Int {
        try database.execute("DELETE FROM sessions WHERE user_id = ?", [.text(userID)])
    }

    @discardableResult
    public func deleteExpiredSessions(now: Date, idleSince: Date) throws -> Int {
        try database.execute("DELETE FROM sessions WHERE expires_at <= ? OR last_seen_at < ?", [.date(now), .date(idleSince)])
    }

    private static func session(from row: SQLRow) throws -> Session {
        Session(
            id: try row.string(0),
            tokenDigest: try row.data(1),
            userID: try row.string(2),
            deviceID: try row.string(3),
            createdAt: try row.date(4),
            lastSeenAt: try row.date(5),
            expiresAt: try row.date(6)
        )
    }
}
