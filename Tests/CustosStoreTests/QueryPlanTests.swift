import CustosCore
import CustosTestSupport
import Foundation
import Testing

@testable import CustosStore

/// No statement the stores run scans a table that grows with users or history: each store's
/// conformance checks run with their statements recorded (`StatementLog`), then each distinct
/// statement is explained with the values it first ran with, on SQLite (`EXPLAIN QUERY PLAN`:
/// no `SCAN` of such a table, not even of a whole index) and on PostgreSQL (`EXPLAIN` with
/// `enable_seqscan` off: no `Seq Scan` of such a table, which then means no index can serve it).
/// The few statements that read a whole table on purpose are named, with why.
@Suite("Query plans")
struct QueryPlanTests {
    /// Tables whose rows grow with users, devices, sign-ins, notifications, grants, takes or time.
    /// (`webhook_outbox_next`: the outbox's name while a migration rebuilds it.)
    static let growing = Set(SQLStore.growingTables + ["webhook_outbox_next"])

    /// Whole-table work on purpose, never on a request's path: an operator's command or a
    /// background sweep over everything (matched by a fragment of the statement).
    static let wholeTableOnPurpose: [(fragment: String, why: String)] = [
        ("DELETE FROM counters WHERE substr(key, 1, ", "housekeeping: counters of one kind that went quiet, every few minutes"),
        ("NOT IN (SELECT DISTINCT key_id FROM biometric_templates)", "master-key rotation (custos admin rotate-master-key): keys no template uses"),
        ("FROM biometric_templates WHERE key_id <> ? ORDER BY user_id LIMIT ?", "master-key rotation: the templates still sealed with an old key, page by page"),
        ("ciphertext, user_id, key_id FROM", "master-key rotation: every sealed record, page by page"),
    ]

    /// Scans on a request's path still to be given an index (issue: performance and scale).
    /// Listed so that the test holds the line against new ones; each is a defect.
    static let stillToIndex: [(fragment: String, why: String)] = []

    @Test("SQLite: no statement scans a growing table")
    func sqlite() throws {
        try check(.sqlite)
    }

    @Test("PostgreSQL: no statement needs a sequential scan of a growing table",
          .enabled(if: TestEnvironment.postgresURL != nil, "CUSTOS_TEST_DATABASE_URL is not set"))
    func postgresql() throws {
        try check(.postgresql)
    }

    private func check(_ kind: StoreKind) throws {
        let log = StatementLog()
        try StatementLog.$current.withValue(log) {
            for check in ConformanceCheck.allCases { try check.run(kind) }
            for check in AuditCheck.allCases { try check.run(kind) }
            for check in OIDCCheck.allCases { try check.run(kind) }
        }
        let statements = log.recorded
        #expect(statements.count > 100, "only \(statements.count) statements recorded")
        var scans: [String] = []
        var unexplained: [String] = []
        try withStore(kind) { store, _ in
            for (sql, binds) in statements.sorted(by: { $0.key < $1.key })
            where !Self.isCheckOwnWork(sql) && !(Self.wholeTableOnPurpose + Self.stillToIndex).contains(where: { sql.contains($0.fragment) }) {
                do {
                    let plan = try Self.plan(sql, binds, store: store, kind: kind)
                    for table in plan.scanned where Self.growing.contains(table) && !(Self.isFirstPage(sql) && !plan.sorts) {
                        scans.append("\(table): \(sql)")
                    }
                } catch {
                    unexplained.append("\(sql): \(error)")
                }
            }
        }
        #expect(scans.isEmpty, "\(scans.count) statements scan a growing table:\n\(scans.joined(separator: "\n"))")
        #expect(unexplained.isEmpty, "statements that could not be explained:\n\(unexplained.joined(separator: "\n"))")
    }

    /// Migrations, pragmas, locks, and the checks' own probes of the schema (`WHERE 1 = 0`, a
    /// whole table's `COUNT(*)`): not a request's work.
    static func isCheckOwnWork(_ sql: String) -> Bool {
        let head = sql.trimmingCharacters(in: .whitespacesAndNewlines).uppercased()
        return ["CREATE ", "ALTER ", "DROP ", "PRAGMA ", "LOCK TABLE ", "INSERT INTO SCHEMA_MIGRATIONS", "SELECT PG_ADVISORY", "SET "]
            .contains { head.hasPrefix($0) } || ["SQLITE_MASTER", "INFORMATION_SCHEMA", "TO_REGCLASS", "FROM SCHEMA_MIGRATIONS", "WHERE 1 = 0"]
            .contains { head.contains($0) } || (head.hasPrefix("SELECT COUNT(*) FROM ") && !head.contains(" WHERE "))
    }

    /// A list's first page (or the newest row): no filter, the order of an index, a limit. It
    /// reads `limit` rows of the index whatever the table's size.
    static func isFirstPage(_ sql: String) -> Bool {
        let text = sql.uppercased()
        return !text.contains(" WHERE ") && text.contains(" ORDER BY ") && text.contains(" LIMIT ")
    }

    /// The tables the plan reads whole (SQLite's `SCAN t`, with or without an index;
    /// PostgreSQL's `Seq Scan on t` with sequential scans made the last resort), and whether it
    /// sorts rows itself rather than reading them in an index's order.
    static func plan(_ sql: String, _ binds: [SQLValue], store: SQLStore, kind: StoreKind) throws -> (scanned: [String], sorts: Bool) {
        let lines: [String]
        let scan: String
        let sort: String
        switch kind {
        case .sqlite:
            lines = try store.database.write { try $0.query("EXPLAIN QUERY PLAN " + sql, binds) }.map { try $0.string(3) }
            (scan, sort) = ("SCAN ", "USE TEMP B-TREE FOR ORDER BY")
        case .postgresql:
            lines = try store.database.transaction { connection -> [SQLRow] in
                try connection.executeScript("SET LOCAL enable_seqscan = off")
                return try connection.query("EXPLAIN " + sql, binds)
            }.map { try $0.string(0) }
            (scan, sort) = ("Seq Scan on ", "Sort ")
        case .memory:
            return ([], false)
        }
        let scanned = lines.compactMap { line in
            line.range(of: scan).flatMap { line[$0.upperBound...].split(separator: " ").first.map(String.init) }
        }
        return (scanned, lines.contains { $0.contains(sort) })
    }
}
