import CSQLite
import CustosCore
import Foundation
import Testing

@testable import CustosStore

@Suite("SQLite store")
struct SQLiteStoreTests {
    @Test("conformance", arguments: ConformanceCheck.allCases)
    func conformance(_ check: ConformanceCheck) throws {
        try check.run(.sqlite)
    }

    @Test("WAL mode, synchronous FULL, foreign keys, busy timeout")
    func pragmas() throws {
        try withStore(.sqlite) { store, harness in
            let (mode, synchronous, foreignKeys, timeout) = try store.database.write { connection in
                (
                    try connection.queryFirst("PRAGMA journal_mode")?.string(0),
                    try connection.queryFirst("PRAGMA synchronous")?.int(0),
                    try connection.queryFirst("PRAGMA foreign_keys")?.int(0),
                    try connection.queryFirst("PRAGMA busy_timeout")?.int(0)
                )
            }
            #expect(mode == "wal")
            #expect(synchronous == 2)  // FULL
            #expect(foreignKeys == 1)
            #expect(timeout == 5000)
            #expect(FileManager.default.fileExists(atPath: harness.location + "-wal"))
            // Readers see the same database in WAL mode.
            #expect(try store.database.read { try $0.queryFirst("PRAGMA journal_mode")?.string(0) } == "wal")

            let normal = try harness.open(sqlite: SQLiteOptions(busyTimeoutMilliseconds: 250, synchronous: .normal, readerCount: 1))
            defer { normal.close() }
            #expect(try normal.database.write { try $0.queryFirst("PRAGMA synchronous")?.int(0) } == 1)
            #expect(try normal.database.write { try $0.queryFirst("PRAGMA busy_timeout")?.int(0) } == 250)
        }
    }

    @Test("data survives close and reopen")
    func durability() throws {
        try withHarness(.sqlite) { harness in
            let first = try harness.open()
            let kept = ConformanceCheck.token("durable")
            try first.issue(kept)
            #expect(try first.increment("n", limit: 5, now: testNow) == 1)
            #expect(try first.increment("n", limit: 5, now: testNow) == 2)
            first.close()

            let second = try harness.open()
            defer { second.close() }
            #expect(try second.peek(purpose: kept.purpose, digest: kept.digest, now: testNow) == kept)
            #expect(try second.value("n") == 2)
            #expect(try second.schemaVersion() == SQLStore.latestSchemaVersion)
        }
    }

    @Test("directories are created 0700 and the file 0600")
    func fileCreation() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("custos-store-perm-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let path = root + "/nested/deeper/custos.sqlite"
        let store = try SQLStore.openSQLite(path: path)
        defer { store.close() }
        #expect(store.dialect == "sqlite")
        #expect(store.location == path)
        func mode(_ p: String) throws -> Int {
            let attributes = try FileManager.default.attributesOfItem(atPath: p)
            return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
        }
        #expect(try mode(root + "/nested/deeper") == 0o700)
        #expect(try mode(root + "/nested") == 0o700)
        #expect(try mode(path) == 0o600)
    }

    @Test("open(databaseURL:) picks SQLite in the data directory, or a sqlite: path")
    func openChoosesSQLite() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("custos-store-open-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        for url in [nil, "", "  "] as [String?] {
            let store = try SQLStore.open(databaseURL: url, dataDirectory: root)
            #expect(store.dialect == "sqlite")
            #expect(store.location == root + "/custos.sqlite")
            store.close()
        }
        let explicit = try SQLStore.open(databaseURL: "sqlite:\(root)/other.db", dataDirectory: "/nonexistent")
        #expect(explicit.location == root + "/other.db")
        explicit.close()
        let slashes = try SQLStore.open(databaseURL: "sqlite://\(root)/third.db", dataDirectory: "/nonexistent")
        #expect(slashes.location == root + "/third.db")
        slashes.close()
        expectStoreError(.failure) { try SQLStore.open(databaseURL: "mysql://db/custos", dataDirectory: root) }
        expectStoreError(.failure) { try SQLStore.open(databaseURL: "sqlite:", dataDirectory: root) }
    }

    @Test("a path that cannot be created is unavailable")
    func unopenable() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("custos-store-bad-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try Data("not a directory".utf8).write(to: URL(fileURLWithPath: root))
        expectStoreError(.unavailable) { try SQLStore.openSQLite(path: root + "/custos.sqlite") }
    }

    @Test("a write lock held beyond the busy timeout is unavailable, not a hang")
    func busyBeyondTimeout() throws {
        try withHarness(.sqlite) { harness in
            let options = SQLiteOptions(busyTimeoutMilliseconds: 200)
            let holder = try harness.open(sqlite: options)
            let blocked = try harness.open(sqlite: options)
            defer { holder.close(); blocked.close() }
            let locked = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let thread = Thread {
                _ = try? holder.database.transaction { connection in
                    try connection.execute("INSERT INTO counters (key, value, updated_at) VALUES ('held', 1, 0)")
                    locked.signal()
                    release.wait()
                }
                locked.signal()
            }
            thread.start()
            locked.wait()
            // Another connection (another process, in effect) waits 200 ms, then gives up.
            expectStoreError(.unavailable) { try blocked.increment("k", limit: 5, now: testNow) }
            // The same store's other callers wait for the in-process writer lock the same way.
            expectStoreError(.unavailable) { try holder.reset("k") }
            // Reads are not blocked by the writer (WAL).
            #expect(try blocked.value("held") == 0)
            release.signal()
            locked.wait()
            #expect(try blocked.increment("k", limit: 5, now: testNow) == 1)
            #expect(try blocked.value("held") == 1)
        }
    }

    @Test("a failed transaction rolls back and leaves the writer usable")
    func rollback() throws {
        try withStore(.sqlite) { store, _ throws in
            expectStoreError(.duplicate) {
                try store.database.transaction { connection in
                    try connection.execute("INSERT INTO counters (key, value, updated_at) VALUES ('r', 1, 0)")
                    try connection.execute("INSERT INTO counters (key, value, updated_at) VALUES ('r', 2, 0)")
                }
            }
            #expect(try store.value("r") == 0)
            expectStoreError(.failure) { try store.database.write { try $0.execute("INSERT INTO nowhere VALUES (1)") } }
            #expect(try store.increment("r", limit: 3, now: testNow) == 1)
        }
    }
}
