import CustosCore
import Foundation

extension SQLStore: CIBAStore {
    public func createCIBARequest(_ request: CIBARequest) throws {
        try database.execute(
            """
            INSERT INTO ciba_requests (request_digest, notification_id, client_id, scope, poll_interval, last_polled_at, tokens_issued, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [.text(request.digest), .text(request.notificationID), .text(request.clientID), .text(request.scope),
             .integer(Int64(request.interval)), .optionalDate(request.lastPolledAt), .integer(request.tokensIssued ? 1 : 0),
             .date(request.createdAt)])
    }

    public func cibaRequest(digest: String) throws -> CIBARequest? {
        try database.select(
            """
            SELECT request_digest, notification_id, client_id, scope, poll_interval, last_polled_at, tokens_issued, created_at, revoked_at
            FROM ciba_requests WHERE request_digest = ?
            """,
            [.text(digest)]
        ).first.map { row in
            CIBARequest(digest: try row.string(0), notificationID: try row.string(1), clientID: try row.string(2), scope: try row.string(3),
                        interval: try row.int(4), lastPolledAt: try row.optionalDate(5), tokensIssued: try row.int(6) != 0,
                        createdAt: try row.date(7), revokedAt: try row.optionalDate(8))
        }
    }

    public func recordCIBAPoll(digest: String, now: Date) throws -> Bool {
        let milliseconds = SQLTime.milliseconds(now)
        let recorded = try database.execute(
            """
            UPDATE ciba_requests SET last_polled_at = ?
            WHERE request_digest = ? AND (last_polled_at IS NULL OR last_polled_at + poll_interval * 1000 <= ?)
            """,
            [.integer(milliseconds), .text(digest), .integer(milliseconds)])
        if recorded == 1 { return true }
        try database.execute("UPDATE ciba_requests SET poll_interval = poll_interval + 5, last_polled_at = ? WHERE request_digest = ?",
                             [.integer(milliseconds), .text(digest)])
        return false
    }

    public func revokeCIBATokens(digest: String, at: Date) throws -> Bool {
        try database.execute("UPDATE ciba_requests SET revoked_at = ? WHERE request_digest = ? AND revoked_at IS NULL",
                             [.date(at), .text(digest)]) == 1
    }

    public func markCIBATokensIssued(digest: String) throws -> Bool {
        try database.execute("UPDATE ciba_requests SET tokens_issued = 1 WHERE request_digest = ? AND tokens_issued = 0", [.text(digest)]) == 1
    }

    public func saveCIBAClient(_ client: CIBAClient, at: Date) throws {
        try database.execute(
            """
            INSERT INTO ciba_clients (client_id, delivery_mode, notification_endpoint, updated_at) VALUES (?, ?, ?, ?)
            ON CONFLICT (client_id) DO UPDATE SET delivery_mode = excluded.delivery_mode,
                notification_endpoint = excluded.notification_endpoint, updated_at = excluded.updated_at
            """,
            [.text(client.clientID), .text(client.mode.rawValue), .optionalText(client.notificationEndpoint), .date(at)])
    }

    public func cibaClient(id: String) throws -> CIBAClient? {
        try database.select("SELECT client_id, delivery_mode, notification_endpoint FROM ciba_clients WHERE client_id = ?", [.text(id)])
            .first.map { row in
                CIBAClient(clientID: try row.string(0), mode: try row.enumValue(CIBAClient.Mode.self, 1, column: "ciba_clients.delivery_mode"),
                           notificationEndpoint: try row.optionalString(2))
            }
    }
}
