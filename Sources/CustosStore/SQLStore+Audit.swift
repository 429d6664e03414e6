import CustosCore
import Foundation

// MARK: - AuditStore

extension SQLStore: AuditStore {
    /// The columns every audit query selects, in the order `auditEvent(from:)` reads them.
    static let auditColumns = "sequence, occurred_at, kind, user_id, transaction_id, details, previous_hash, hash"

    /// One transaction that first takes the chain's lock: PostgreSQL `LOCK TABLE … IN
    /// EXCLUSIVE MODE` (other appenders, on any node, wait; readers do not), SQLite the single
    /// writer's `BEGIN IMMEDIATE` (other processes wait up to the busy timeout). The head is
    /// read after the lock, so it is the committed last event.
    public func appendAuditEvent(_ make: (_ head: AuditChainHead?) throws -> AuditEvent) throws -> AuditEvent {
        try lockingAuditChain { connection in
            let head = try connection.queryFirst("SELECT sequence, hash FROM audit_events ORDER BY sequence DESC LIMIT 1")
                .map { AuditChainHead(sequence: try $0.int64(0), hash: try $0.data(1)) }
            let event = try make(head)
            try event.checkFollows(head)
            try connection.execute(
                "INSERT INTO audit_events (\(Self.auditColumns), actor) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    .integer(event.sequence), .date(event.occurredAt), .text(event.kind), .optionalText(event.userID),
                    .optionalText(event.transactionID), try .json(event.details),
                    .blob(event.previousHash), .blob(event.hash), .optionalText(event.details[AuditActor.detail]),
                ]
            )
            return event
        }
    }

    /// Under the chain's lock, like appends; each page is read on the transaction's connection,
    /// so it sees the rows already rewritten.
    public func rewriteAuditChain(pageSize: Int, _ rewrite: (AuditEvent) throws -> AuditEvent) throws -> Int {
        try lockingAuditChain { connection in
            var changed = 0
            var after: Int64 = 0
            while true {
                let page = try connection.query(
                    "SELECT \(Self.auditColumns) FROM audit_events WHERE sequence > ? ORDER BY sequence LIMIT ?",
                    [.integer(after), .integer(Int64(max(1, pageSize)))]
                ).map(Self.auditEvent(from:))
                guard let last = page.last else { return changed }
                for event in page {
                    let rewritten = try rewrite(event)
                    guard rewritten.previousHash != event.previousHash || rewritten.hash != event.hash else { continue }
                    try connection.execute("UPDATE audit_events SET previous_hash = ?, hash = ? WHERE sequence = ?",
                                           [.blob(rewritten.previousHash), .blob(rewritten.hash), .integer(event.sequence)])
                    changed += 1
                }
                after = last.sequence
            }
        }
    }

    /// One transaction that first takes the chain's lock (see `appendAuditEvent`).
    func lockingAuditChain<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try database.transaction { connection in
            if database.dialect == .postgresql {
                try connection.execute("LOCK TABLE audit_events IN EXCLUSIVE MODE")
            }
            return try body(connection)
        }
    }

    /// Keyset paging on the sequence; the filters are added only when given. A `limit` of 0
    /// or less returns no events.
    public func auditEvents(afterSequence: Int64, limit: Int, userID: String?, transactionID: String?, actor: String?) throws -> [AuditEvent] {
        guard limit > 0 else { return [] }
        var conditions = ["sequence > ?"]
        var binds: [SQLValue] = [.integer(afterSequence)]
        if let userID {
            conditions.append("user_id = ?")
            binds.append(.text(userID))
        }
        if let transactionID {
            conditions.append("transaction_id = ?")
            binds.append(.text(transactionID))
        }
        if let actor {
            conditions.append("actor = ?")
            binds.append(.text(actor))
        }
        let rows = try database.select(
            "SELECT \(Self.auditColumns) FROM audit_events WHERE \(conditions.joined(separator: " AND ")) ORDER BY sequence LIMIT ?",
            binds + [.integer(Int64(limit))]
        )
        return try rows.map(Self.auditEvent(from:))
    }

    /// A row that does not read back as an event is `AuditError.unreadableEvent` naming its
    /// sequence, so `AuditTrail.verify()` can report where the chain breaks.
    private static func auditEvent(from row: SQLRow) throws -> AuditEvent {
        let sequence = try row.int64(0)
        guard let details = try? JSONDecoder().decode([String: String].self, from: row.data(5)) else {
            throw AuditError.unreadableEvent(sequence: sequence, reason: "details are not a JSON object of strings")
        }
        do {
            return AuditEvent(
                sequence: sequence, occurredAt: try row.date(1), kind: try row.string(2), userID: try row.optionalString(3),
                transactionID: try row.optionalString(4), details: details, previousHash: try row.data(6), hash: try row.data(7)
            )
        } catch {
            throw AuditError.unreadableEvent(sequence: sequence, reason: String(describing: error))
        }
    }
}
