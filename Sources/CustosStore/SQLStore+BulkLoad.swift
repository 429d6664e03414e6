import CustosCore
import Foundation

/// What a benchmark that fills the database in bulk (`custos bench fill`) asks of the store.
extension SQLStore {
    /// The tables that grow with users and history.
    public static let growingTables = [
        "users", "devices", "sessions", "single_use_tokens", "counters", "counter_leases", "audit_events", "notifications", "webhook_outbox",
        "idv_transactions", "biometric_templates", "frame_memories", "idv_documents", "oidc_authorizations", "oidc_codes",
        "oidc_grants", "oidc_refresh_tokens", "oidc_client_assertions", "ciba_requests",
    ]

    /// One transaction for loading many rows, faster than `atomically`: a write that fails
    /// fails the whole block (no savepoint per write), and SQLite keeps 256 MiB of pages in
    /// memory for it.
    public func bulkLoad<T>(_ body: () throws -> T) throws -> T {
        try database.bulk(cacheMiB: 256, body)
    }

    /// Appends `count` events under one lock of the chain, many rows per statement (a bulk
    /// load's history): `make` is called for each in turn with its index and the head it must
    /// follow, as `appendAuditEvent` calls it.
    public func appendAuditEvents(count: Int, _ make: (_ index: Int, _ head: AuditChainHead?) throws -> AuditEvent) throws {
        try lockingAuditChain { connection in
            var head = try connection.queryFirst("SELECT sequence, hash FROM audit_events ORDER BY sequence DESC LIMIT 1")
                .map { AuditChainHead(sequence: try $0.int64(0), hash: try $0.data(1)) }
            var index = 0
            while index < count {
                let rows = min(200, count - index)
                var binds: [SQLValue] = []
                binds.reserveCapacity(rows * 9)
                for _ in 0..<rows {
                    let event = try make(index, head)
                    try event.checkFollows(head)
                    binds += [
                        .integer(event.sequence), .date(event.occurredAt), .text(event.kind), .optionalText(event.userID),
                        .optionalText(event.transactionID), try .json(event.details),
                        .blob(event.previousHash), .blob(event.hash), .optionalText(event.details[AuditActor.detail]),
                    ]
                    head = AuditChainHead(sequence: event.sequence, hash: event.hash)
                    index += 1
                }
                let values = Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?, ?)", count: rows).joined(separator: ", ")
                _ = try connection.execute("INSERT INTO audit_events (\(Self.auditColumns), actor) VALUES \(values)", binds)
            }
        }
    }

    /// After a bulk load, on PostgreSQL: `ANALYZE`, which autovacuum would run within a minute
    /// or so of it, so that plans are made with the tables' real sizes. Nothing on SQLite, where
    /// the server never gathers statistics.
    public func analyzeAfterBulkLoad() throws {
        guard database.dialect == .postgresql else { return }
        _ = try database.execute("ANALYZE")
    }

    /// Each of `tables` with its row count (a whole-table count: for tools, never a request).
    public func rowCounts(_ tables: [String] = growingTables) throws -> [(table: String, rows: Int64)] {
        try tables.map { table in
            guard table.allSatisfy({ $0.isLetter || $0 == "_" }) else { throw StoreError.failure("not a table name: \(table)") }
            let rows = try database.select("SELECT COUNT(*) FROM \(table)").first.map { try $0.int64(0) } ?? 0
            return (table, rows)
        }
    }
}
