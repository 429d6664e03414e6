import CustosCore
import CustosFakes
import CustosTestSupport
import Foundation
import Testing

@testable import CustosStore

@Suite("SQLite audit store")
struct SQLiteAuditStoreTests {
    @Test("audit conformance", arguments: AuditCheck.allCases)
    func conformance(_ check: AuditCheck) throws {
        try check.run(.sqlite)
    }
}

@Suite(
    "PostgreSQL audit store",
    .enabled(if: TestEnvironment.postgresURL != nil, "CUSTOS_TEST_DATABASE_URL is not set; run under scripts/with-postgres.sh to test PostgreSQL")
)
struct PostgresAuditStoreTests {
    @Test("audit conformance", arguments: AuditCheck.allCases)
    func conformance(_ check: AuditCheck) throws {
        try check.run(.postgresql)
    }
}

/// The behaviour of the audit trail over `SQLStore`, run against SQLite and PostgreSQL:
/// appending, listing and filtering, the chain under concurrent appenders on two nodes, and
/// tampering by raw SQL that `AuditTrail.verify()` must name.
enum AuditCheck: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case schemaIsVersion3
    case upgradeFromVersion2
    case appendListFilter
    case valuesRoundTrip
    case appendRefusesWhatDoesNotContinueTheChain
    case auditOutlivesDeletedUsers
    case concurrentAppendsFormOneChain
    case alteredDetailsAreNamed
    case deletedEventIsNamed
    case relinkedEventIsNamed
    case unreadableEventIsNamed
    case rekeyRewritesEveryLinkAndHash
    case rekeyRefusesABrokenChain

    var testDescription: String { rawValue }

    /// Checks that need SQL: the schema and its migration, and tampering with rows by hand.
    static let sqlOnly: Set<AuditCheck> = [
        .schemaIsVersion3, .upgradeFromVersion2, .alteredDetailsAreNamed, .deletedEventIsNamed, .relinkedEventIsNamed,
        .unreadableEventIsNamed, .rekeyRefusesABrokenChain,
    ]

    /// What every audit store must show, SQL or not.
    static var portable: [AuditCheck] { allCases.filter { !sqlOnly.contains($0) } }

    func run(_ kind: StoreKind) throws {
        switch self {
        case .schemaIsVersion3: try withStore(kind, Self.schema)
        case .upgradeFromVersion2: try withHarness(kind, Self.upgrade)
        case .appendListFilter: try withAnyStore(kind, Self.appendListFilter)
        case .valuesRoundTrip: try withAnyStore(kind, Self.valuesRoundTrip)
        case .appendRefusesWhatDoesNotContinueTheChain: try withAnyStore(kind, Self.appendRefuses)
        case .auditOutlivesDeletedUsers: try withAnyStore(kind, Self.outlivesUsers)
        case .concurrentAppendsFormOneChain: try withNodes(kind, Self.concurrentAppends)
        case .alteredDetailsAreNamed: try withStore(kind, Self.alteredDetails)
        case .deletedEventIsNamed: try withStore(kind, Self.deletedEvent)
        case .relinkedEventIsNamed: try withStore(kind, Self.relinkedEvent)
        case .unreadableEventIsNamed: try withStore(kind, Self.unreadableEvent)
        case .rekeyRewritesEveryLinkAndHash: try withAnyStore(kind, Self.rekey)
        case .rekeyRefusesABrokenChain: try withStore(kind, Self.rekeyRefuses)
        }
    }

    // MARK: Fixtures

    /// Not SHA-256 (this target has no crypto): four FNV-1a passes, 32 bytes that change
    /// with every input byte, which is all the chain checks need. Another `key` gives other
    /// hashes, like another master key.
    struct Digester: SecretDigester {
        var key: UInt64 = 0
        func digest(_ secret: String) -> Data { digest(bytes: Data(secret.utf8)) }
        func digest(bytes: Data) -> Data {
            var out = Data()
            for seed in UInt64(1)...4 {
                var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ seed ^ (key << 8)
                for byte in bytes {
                    hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
                }
                withUnsafeBytes(of: hash.bigEndian) { out.append(contentsOf: $0) }
            }
            return out
        }
    }

    /// `testNow` plus a sub-millisecond part, which the trail drops.
    struct Clock: CustosCore.Clock {
        func now() -> Date { testNow.addingTimeInterval(0.0123456) }
    }

    static func trail(_ store: any AuditStore) -> AuditTrail {
        AuditTrail(store: store, digester: Digester(), clock: Clock())
    }

    /// Six events of two users and three transactions.
    @discardableResult
    static func recordSix(_ trail: AuditTrail) throws -> [AuditEvent] {
        [
            try trail.record(.idvTransactionStarted, userID: "alice", transactionID: "t1", details: ["workflow": "8"]),
            try trail.record(.idvVerdict, userID: "alice", transactionID: "t1", details: ["result": "NOT_MATCHED", "attempts_left": "2"]),
            try trail.record(.idvTransactionStarted, userID: "bob", transactionID: "t2", details: ["workflow": "10"]),
            try trail.record(.keyRotation, userID: nil, details: ["key_id": "k2"]),
            try trail.record(.idvCancelled, userID: "bob", transactionID: "t2"),
            try trail.record(.lockout, userID: "alice", transactionID: "t3"),
        ]
    }

    static func expectBreak(_ trail: AuditTrail, at sequence: Int64, _ reason: AuditChainBreak.Reason, checked: Int,
                            sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try trail.verify()
        #expect(result.firstBreak == AuditChainBreak(sequence: sequence, reason: reason), sourceLocation: sourceLocation)
        #expect(result.checked == checked, sourceLocation: sourceLocation)
        #expect(result.lastSequence == Int64(checked), sourceLocation: sourceLocation)
        #expect(!result.isIntact, sourceLocation: sourceLocation)
    }

    // MARK: Schema

    static func schema(_ store: SQLStore, _: StoreHarness) throws {
        #expect(SQLStore.latestSchemaVersion >= 3)
        let migration = try #require(Migrations.all.first { $0.version == 3 })
        #expect(migration.name == "audit_events")
        #expect(try store.schemaVersion() == SQLStore.latestSchemaVersion)
        _ = try store.database.read {
            try $0.query("SELECT sequence, occurred_at, kind, user_id, transaction_id, details, previous_hash, hash FROM audit_events WHERE 1 = 0")
        }
        let empty = try trail(store).verify()
        #expect(empty == AuditVerification(checked: 0, lastSequence: 0, headHash: nil, firstBreak: nil))
    }

    /// A database at version 2 with a user in it gets the audit table; the user stays.
    static func upgrade(_ harness: StoreHarness) throws {
        let store = try harness.open(migrate: false)
        defer { store.close() }
        let versionTwo = Migrator(database: store.database, migrations: Array(Migrations.all.prefix(2)),
                                  schema: harness.kind == .postgresql ? harness.scope : nil)
        #expect(try versionTwo.migrate(apply: true).applied == [1, 2])
        // Written as version 2's code wrote it (the users table had no created_by yet).
        try store.database.execute("INSERT INTO users (id, status, created_at, lockout_count) VALUES (?, ?, ?, 0)",
                                   [.text("alice"), .text("active"), .date(Date(timeIntervalSince1970: 1_700_000_000))])
        #expect(try store.migrate().applied.first == 3)
        #expect(try store.user(id: "alice") != nil)
        try trail(store).record(.lockout, userID: "alice")
        #expect(try trail(store).verify().checked == 1)
    }

    // MARK: Appending and listing

    static func appendListFilter(_ store: any ConformingStore, _: any StoreNodes) throws {
        let trail = trail(store)
        let events = try recordSix(trail)
        #expect(events.map(\.sequence) == [1, 2, 3, 4, 5, 6])
        #expect(events[0].previousHash == AuditEvent.genesisHash)
        for (earlier, later) in zip(events, events.dropFirst()) {
            #expect(later.previousHash == earlier.hash)
        }
        #expect(events.allSatisfy { $0.occurredAt == Date(timeIntervalSince1970: 1_700_000_000.012) && $0.hash.count == 32 })
        #expect(events[1].kind == "idv.verdict" && events[1].auditKind == .idvVerdict)

        // What reads back is what record returned.
        #expect(try trail.list(userID: nil, transactionID: nil) == events)
        #expect(try trail.list(userID: "alice", transactionID: nil) == [events[0], events[1], events[5]])
        #expect(try trail.list(userID: nil, transactionID: "t2") == [events[2], events[4]])
        #expect(try trail.list(userID: "alice", transactionID: "t1") == [events[0], events[1]])
        #expect(try trail.list(userID: "alice", transactionID: "t2").isEmpty)
        #expect(try trail.list(userID: "nobody", transactionID: nil).isEmpty)
        // Paging.
        #expect(try trail.list(userID: nil, transactionID: nil, afterSequence: 2, limit: 2) == [events[2], events[3]])
        #expect(try trail.list(userID: "alice", transactionID: nil, afterSequence: 1, limit: 1) == [events[1]])
        #expect(try trail.list(userID: nil, transactionID: nil, afterSequence: 6).isEmpty)
        #expect(try store.auditEvents(afterSequence: 0, limit: 0, userID: nil, transactionID: nil).isEmpty)

        let verification = try trail.verify()
        #expect(verification == AuditVerification(checked: 6, lastSequence: 6, headHash: events[5].hash, firstBreak: nil))
    }

    static func valuesRoundTrip(_ store: any ConformingStore, _: any StoreNodes) throws {
        let trail = trail(store)
        let odd = "ünïcødé 🔐 \"quoted\" 'single' ? $1 %_\\ {\"json\": [1]}"
        let details = ["reason": odd, "empty": "", "z.last": "1", "A-first": "2", "long": String(repeating: "é", count: 512)]
        let recorded = try trail.record(.idvVerdict, userID: odd, transactionID: "tx-" + odd, details: details)
        let read = try trail.list(userID: odd, transactionID: nil)
        #expect(read == [recorded])
        #expect(read.first?.details == details)
        #expect(try trail.list(userID: nil, transactionID: "tx-" + odd) == [recorded])
        #expect(try trail.verify().isIntact)
    }

    static func appendRefuses(_ store: any ConformingStore, _: any StoreNodes) throws {
        let trail = trail(store)
        let first = try trail.record(.lockout, userID: "alice")
        var wrongSequence = first
        wrongSequence.sequence = 3
        wrongSequence.previousHash = first.hash
        #expect(throws: AuditError.self) { try store.appendAuditEvent { _ in wrongSequence } }
        var wrongLink = first
        wrongLink.sequence = 2
        #expect(throws: AuditError.self) { try store.appendAuditEvent { _ in wrongLink } }
        struct Refused: Error {}
        #expect(throws: Refused.self) { try store.appendAuditEvent { _ in throw Refused() } }
        // Details that break the rules are refused before anything is written.
        #expect(throws: AuditError.self) { try trail.record(.idvVerdict, userID: "a", details: ["frame": String(repeating: "x", count: 513)]) }
        #expect(throws: AuditError.self) { try trail.record(.idvVerdict, userID: "a", details: ["bad key": "x"]) }
        #expect(try trail.list(userID: nil, transactionID: nil) == [first])
        // The chain goes on where it was.
        let head = try store.appendAuditEvent { head in
            #expect(head == AuditChainHead(sequence: 1, hash: first.hash))
            var next = first
            next.sequence = 2
            next.previousHash = first.hash
            next.hash = trail.hash(of: next)
            return next
        }
        #expect(head.sequence == 2)
        #expect(try trail.verify().checked == 2)
    }

    static func outlivesUsers(_ store: any ConformingStore, _: any StoreNodes) throws {
        try store.createUser(ConformanceCheck.user("alice"))
        let trail = trail(store)
        let event = try trail.record(.enrollment, userID: "alice", details: ["workflow": "10"])
        #expect(try store.deleteUser(id: "alice"))
        try trail.record(.userDeleted, userID: "alice", details: ["cause": "user_deleted"])
        #expect(try trail.list(userID: "alice", transactionID: nil).first == event)
        #expect(try trail.list(userID: "alice", transactionID: nil).count == 2)
    }

    /// Two nodes, twenty threads appending at once: twenty events numbered 1…20 in one valid
    /// chain, each thread's event exactly once.
    static func concurrentAppends(_ harness: any StoreNodes) throws {
        let nodes = [try harness.node(), try harness.node()]
        defer { nodes.forEach { $0.close() } }
        let results = runConcurrently(20) { i in
            try trail(nodes[i % nodes.count]).record(.idvVerdict, userID: "user-\(i)", transactionID: "t-\(i)", details: ["thread": "\(i)"])
        }
        let appended = results.compactMap { try? $0.get() }
        for case .failure(let error) in results {
            Issue.record("append failed: \(error)")
        }
        #expect(Set(appended.map(\.sequence)) == Set(1...20))
        let stored = try trail(nodes[1]).list(userID: nil, transactionID: nil)
        #expect(stored.map(\.sequence) == Array(1...20))
        #expect(Set(stored.compactMap(\.userID)) == Set((0..<20).map { "user-\($0)" }))
        #expect(stored == appended.sorted { $0.sequence < $1.sequence })
        let verification = try trail(nodes[0]).verify()
        #expect(verification.isIntact)
        #expect(verification.checked == 20)
    }

    // MARK: Tampering

    static func alteredDetails(_ store: SQLStore, _: StoreHarness) throws {
        let trail = trail(store)
        try recordSix(trail)
        let changed = try store.database.execute(
            "UPDATE audit_events SET details = ? WHERE sequence = ?", [.text(#"{"attempts_left":"2","result":"MATCHED"}"#), .integer(2)]
        )
        #expect(changed == 1)
        try expectBreak(trail, at: 2, .hashMismatch, checked: 1)
    }

    static func deletedEvent(_ store: SQLStore, _: StoreHarness) throws {
        let trail = trail(store)
        try recordSix(trail)
        #expect(try store.database.execute("DELETE FROM audit_events WHERE sequence = ?", [.integer(4)]) == 1)
        try expectBreak(trail, at: 4, .missing, checked: 3)
    }

    /// Event 3 rewritten with a hash that fits its new content: event 4 no longer links to it.
    static func relinkedEvent(_ store: SQLStore, _: StoreHarness) throws {
        let trail = trail(store)
        let events = try recordSix(trail)
        var forged = events[2]
        forged.userID = "mallory"
        forged.hash = trail.hash(of: forged)
        try store.database.execute(
            "UPDATE audit_events SET user_id = ?, hash = ? WHERE sequence = ?", [.text("mallory"), .blob(forged.hash), .integer(3)]
        )
        try expectBreak(trail, at: 4, .brokenLink, checked: 3)
    }

    static func unreadableEvent(_ store: SQLStore, _: StoreHarness) throws {
        let trail = trail(store)
        try recordSix(trail)
        try store.database.execute("UPDATE audit_events SET details = ? WHERE sequence = ?", [.text("not json"), .integer(5)])
        try expectBreak(trail, at: 5, .unreadable("details are not a JSON object of strings"), checked: 4)
        #expect(throws: AuditError.unreadableEvent(sequence: 5, reason: "details are not a JSON object of strings")) {
            try trail.list(userID: "bob", transactionID: nil)
        }
    }

    // MARK: Re-keying

    /// A chain of events under the old key, then two appended by a node already on the new key,
    /// comes out whole under the new key alone; a second pass changes nothing.
    static func rekey(_ store: any ConformingStore, _: any StoreNodes) throws {
        let old = trail(store)
        let new = AuditTrail(store: store, digester: Digester(key: 7), previousDigester: Digester(), clock: Clock())
        let before = try recordSix(old) + [try new.record(.lockout, userID: "bob"), try new.record(.optOut, userID: "alice")]
        #expect(try !old.verify().isIntact && new.verify().isIntact)

        #expect(try new.rekey() == 8)
        let after = try new.list(userID: nil, transactionID: nil)
        #expect(after.count == 8)
        for (was, now) in zip(before, after) {
            var unchanged = now
            unchanged.previousHash = was.previousHash
            unchanged.hash = was.hash
            #expect(unchanged == was)
        }
        let newOnly = AuditTrail(store: store, digester: Digester(key: 7), clock: Clock())
        #expect(try newOnly.verify() == AuditVerification(checked: 8, lastSequence: 8, headHash: after.last?.hash, firstBreak: nil))
        #expect(try new.rekey() == 0)
        #expect(try new.list(userID: nil, transactionID: nil) == after)
        #expect(try newOnly.record(.lockout, userID: "carol").sequence == 9)
    }

    /// An altered event anywhere refuses the re-keying, and nothing changes.
    static func rekeyRefuses(_ store: SQLStore, _: StoreHarness) throws {
        let old = trail(store)
        try recordSix(old)
        try store.database.execute("UPDATE audit_events SET user_id = ? WHERE sequence = ?", [.text("mallory"), .integer(5)])
        let stored = try old.list(userID: nil, transactionID: nil)
        let new = AuditTrail(store: store, digester: Digester(key: 7), previousDigester: Digester(), clock: Clock())
        #expect(throws: AuditError.brokenChain(AuditChainBreak(sequence: 5, reason: .hashMismatch))) { try new.rekey() }
        #expect(try old.list(userID: nil, transactionID: nil) == stored)
        try store.database.execute("UPDATE audit_events SET details = ? WHERE sequence = ?", [.text("not json"), .integer(2)])
        #expect(throws: AuditError.unreadableEvent(sequence: 2, reason: "details are not a JSON object of strings")) { try new.rekey() }
    }
}
