import CustosAPI
import CustosCore
import CustosCrypto
import CustosCryptoServices
import Foundation
import Testing

@testable import CustosStore

/// `custos admin audit verify|list` on a SQLite data directory whose events are written
/// through the store, as the server writes them.
@Suite struct AuditCLITests {
    /// A fresh data directory holding the events of two users, chained under the development
    /// master key kept there (what `--dev` reads).
    struct AuditedData {
        let dataDir = CLI.temporaryDirectory()
        var databasePath: String { dataDir + "/" + SQLStore.defaultSQLiteFileName }
        let events: [AuditEvent]
        let masterKey = MasterKey.generate()

        init() throws {
            try Data((masterKey.exportBase64() + "\n").utf8).write(to: URL(fileURLWithPath: dataDir + "/dev-master-key"))
            let store = try SQLStore.openSQLite(path: dataDir + "/" + SQLStore.defaultSQLiteFileName)
            defer { store.close() }
            let trail = AuditTrail(store: store, digester: MasterKeyAuditDigester(masterKey: masterKey), clock: SystemClock())
            events = [
                try trail.record(.idvTransactionStarted, userID: "alice", transactionID: "t1", details: ["workflow": "8"]),
                try trail.record(.idvVerdict, userID: "alice", transactionID: "t1", details: ["result": "NOT_MATCHED", "attempts_left": "2"]),
                try trail.record(.enrollment, userID: "bob", transactionID: "t2", details: ["workflow": "10"]),
                try trail.record(.keyRotation, userID: nil, details: ["key_id": "k2"]),
                try trail.record(.lockout, userID: "alice"),
            ]
        }

        /// `verify` with the development key of the directory.
        func audit(_ arguments: [String]) throws -> CLI.Result {
            try CLI.run(["admin", "audit"] + arguments + (arguments.first == "verify" ? ["--dev"] : []) + ["--data-dir", dataDir])
        }

        /// Raw SQL on the database file, as someone with write access to it could run.
        func tamper(_ sql: String) throws {
            let store = try SQLStore.openSQLite(path: databasePath, migrate: false)
            defer { store.close() }
            try store.database.execute(sql)
        }
    }

    @Test func verifyPassesOnAnEmptyTrail() throws {
        let result = try CLI.run(["admin", "audit", "verify", "--dev", "--data-dir", CLI.temporaryDirectory()])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "audit chain intact: 0 events\n")
    }

    @Test func verifyPassesAndNamesTheHead() throws {
        let data = try AuditedData()
        let result = try data.audit(["verify"])
        #expect(result.status == 0, "\(result.stderr)")
        let head = try #require(data.events.last)
        let hash = head.hash.map { String(format: "%02x", $0) }.joined()
        #expect(result.stdout == "audit chain intact: 5 events\nhead: event 5, hash \(hash) (keep it elsewhere; check later with --expect-head 5:\(hash))\n")
        let again = try data.audit(["verify", "--expect-head", "5:\(hash)"])
        #expect(again.status == 0 && again.stdout.hasPrefix("audit chain intact: expected head 5 found, 0 events after it\n"), "\(again.stdout)")
        #expect(again.stdout.contains("head: event 5, hash \(hash)"), "\(again.stdout)")
        #expect(try data.audit(["verify", "--expect-head", "5:xyz"]).status == 2)
    }

    /// From a head kept elsewhere, verify reads and recomputes only what was added since; an
    /// event altered after the head is found. `--full` rereads the whole chain, which finds an
    /// event altered before the head too (whose own hash the head's does not cover).
    @Test func anExpectedHeadResumesTheCheckAfterIt() throws {
        let data = try AuditedData()
        let last = try #require(data.events.last)
        let head = "--expect-head=5:" + last.hash.map { String(format: "%02x", $0) }.joined()
        let store = try SQLStore.openSQLite(path: data.databasePath)
        let trail = AuditTrail(store: store, digester: MasterKeyAuditDigester(masterKey: data.masterKey), clock: SystemClock())
        try trail.record(.lockout, userID: "bob")
        try trail.record(.lockout, userID: "carol")
        store.close()
        let resumed = try data.audit(["verify", head])
        #expect(resumed.status == 0 && resumed.stdout.hasPrefix("audit chain intact: expected head 5 found, 2 events after it\n"), "\(resumed.stdout)")
        #expect(resumed.stdout.contains("head: event 7,"), "\(resumed.stdout)")
        let full = try data.audit(["verify", head, "--full"])
        #expect(full.status == 0 && full.stdout.hasPrefix("audit chain intact: 7 events, expected head 5 found\n"), "\(full.stdout)")

        try data.tamper("UPDATE audit_events SET user_id = 'mallory' WHERE sequence = 7")
        let after = try data.audit(["verify", head])
        #expect(after.status == 1 && after.stdout.hasPrefix("audit chain broken at event 7:"), "\(after.stdout)")
        try data.tamper("UPDATE audit_events SET user_id = 'carol' WHERE sequence = 7")
        try data.tamper("UPDATE audit_events SET user_id = 'mallory' WHERE sequence = 2")
        #expect(try data.audit(["verify", head]).status == 0)
        let before = try data.audit(["verify", head, "--full"])
        #expect(before.status == 1 && before.stdout.hasPrefix("audit chain broken at event 2:"), "\(before.stdout)")
    }

    /// Someone with write access cuts the tail, or rewrites it with hashes recomputed: the chain
    /// holds in itself, and only the head kept elsewhere shows it.
    @Test func anExpectedHeadDetectsACutOrRewrittenTail() throws {
        let data = try AuditedData()
        let head = try #require(data.events.last)
        let expected = "--expect-head=5:" + head.hash.map { String(format: "%02x", $0) }.joined()
        try data.tamper("DELETE FROM audit_events WHERE sequence >= 4")
        #expect(try data.audit(["verify"]).status == 0)
        let cut = try data.audit(["verify", expected])
        #expect(cut.status == 1 && cut.stdout.contains("cut short"), "\(cut.stdout)")

        let store = try SQLStore.openSQLite(path: data.databasePath)
        let trail = AuditTrail(store: store, digester: MasterKeyAuditDigester(masterKey: data.masterKey), clock: SystemClock())
        try trail.record(.keyRotation, userID: nil, details: ["key_id": "forged"])
        try trail.record(.lockout, userID: "mallory")
        store.close()
        let rewritten = try data.audit(["verify", expected])
        #expect(rewritten.status == 1 && rewritten.stdout.contains("rewritten"), "\(rewritten.stdout)")
    }

    @Test func listFiltersPagesAndPrintsJSON() throws {
        let data = try AuditedData()
        let all = try data.audit(["list", "--json"])
        #expect(all.status == 0, "\(all.stderr)")
        let page = try WireJSON.decoder().decode(AuditEventList.self, from: Data(all.stdout.utf8))
        #expect(page.events.map(\.sequence) == [1, 2, 3, 4, 5])
        #expect(page.nextAfter == nil)
        #expect(page.events[0].previousHash == String(repeating: "0", count: 64))
        #expect(page.events[1].previousHash == page.events[0].hash)
        #expect(page.events[1].details == ["result": "NOT_MATCHED", "attempts_left": "2"])
        #expect(page.events[3].userID == nil)
        #expect(all.stdout.contains("\"transaction_id\" : \"t1\""))

        let alice = try WireJSON.decoder().decode(AuditEventList.self, from: Data(try data.audit(["list", "--user", "alice", "--json"]).stdout.utf8))
        #expect(alice.events.map(\.sequence) == [1, 2, 5])
        let t2 = try WireJSON.decoder().decode(AuditEventList.self, from: Data(try data.audit(["list", "--transaction", "t2", "--json"]).stdout.utf8))
        #expect(t2.events.map(\.kind) == ["biometric.enrolled"])
        let paged = try WireJSON.decoder().decode(AuditEventList.self, from: Data(try data.audit(["list", "--after", "2", "--limit", "2", "--json"]).stdout.utf8))
        #expect(paged.events.map(\.sequence) == [3, 4])
        #expect(paged.nextAfter == 4)

        let human = try data.audit(["list", "--user", "alice", "--transaction", "t1"])
        #expect(human.status == 0)
        let lines = human.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(lines[1].hasPrefix("2  "))
        #expect(lines[1].hasSuffix("idv.verdict  user=alice  transaction=t1  attempts_left=2  result=NOT_MATCHED"))
        #expect(try data.audit(["list", "--user", "nobody"]).stdout == "no audit events\n")

        #expect(try data.audit(["list", "--limit", "0"]).status == 2)
        #expect(try data.audit(["list", "--limit", "1001"]).status == 2)
        #expect(try data.audit(["list", "--after", "-1"]).status == 2)
        #expect(try data.audit(["list", "--user", ""]).status == 2)
    }

    @Test func verifyNamesAnAlteredEvent() throws {
        let data = try AuditedData()
        try data.tamper(#"UPDATE audit_events SET details = '{"attempts_left":"2","result":"MATCHED"}' WHERE sequence = 2"#)
        let result = try data.audit(["verify"])
        #expect(result.status == 1)
        #expect(result.stdout.contains("audit chain broken at event 2: hash mismatch"), "\(result.stdout)")
        #expect(result.stdout.contains("1 events before it intact"))
    }

    @Test func verifyNamesARemovedEvent() throws {
        let data = try AuditedData()
        try data.tamper("DELETE FROM audit_events WHERE sequence = 3")
        let result = try data.audit(["verify"])
        #expect(result.status == 1)
        #expect(result.stdout.contains("audit chain broken at event 3: missing event"), "\(result.stdout)")
    }

    /// Someone who can write to the database but lacks the master key rewrites the whole chain
    /// with plain SHA-256 hashes: the keyed chain does not verify from its first event.
    @Test func aChainRewrittenWithoutTheKeyDoesNotVerify() throws {
        let data = try AuditedData()
        try data.tamper("DELETE FROM audit_events")
        let store = try SQLStore.openSQLite(path: data.databasePath)
        let forger = AuditTrail(store: store, digester: SHA256SecretDigester(), clock: SystemClock())
        try forger.record(.enrollment, userID: "mallory", details: ["workflow": "10"])
        try forger.record(.keyRotation, userID: nil, details: ["key_id": "k9"])
        store.close()
        let result = try data.audit(["verify"])
        #expect(result.status == 1 && result.stdout.contains("audit chain broken at event 1: hash mismatch"), "\(result.stdout)")
    }
}
