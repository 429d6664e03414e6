import CustosCore
import CustosFakes
import CustosTestSupport
import Foundation
import Testing

@testable import CustosStore

/// Runs only where `CUSTOS_TEST_DATABASE_URL` names a scratch PostgreSQL database (for
/// example under `scripts/with-postgres.sh swift test`); skipped otherwise, unless
/// `CUSTOS_REQUIRE_POSTGRES=1` (see `postgresIsAvailableWhenRequired`).
///
/// Serialized: the reconnect test stops the server, which would break tests running beside
/// it. Each test otherwise works in its own schema.
@Suite(
    "PostgreSQL store",
    .serialized,
    .enabled(if: TestEnvironment.postgresURL != nil, "CUSTOS_TEST_DATABASE_URL is not set; run under scripts/with-postgres.sh to test PostgreSQL")
)
struct PostgresStoreTests {
    @Test("conformance", arguments: ConformanceCheck.allCases)
    func conformance(_ check: ConformanceCheck) throws {
        try check.run(.postgresql)
    }

    @Test("binary parameters and results of every supported type")
    func typeRoundTrip() throws {
        try withStore(.postgresql) { store, _ in
            #expect(store.dialect == "postgresql")
            #expect(!store.location.contains("password"))
            let row = try #require(try store.database.read { connection in
                try connection.queryFirst(
                    """
                    SELECT 1::int2, 2::int4, 3::int8, 'x'::text, 'y'::varchar, '\\x00ff'::bytea, true, false,
                           1.5::float8, 2.5::float4, NULL::text, 'n'::name, ?, ?, ?, ?, ?, '?', ?
                    """,
                    [.integer(Int64.min), .text("tëxt"), .blob(Data()), .blob(Data([0, 1, 2])), .real(-0.25), .null]
                )
            })
            #expect(row.values == [
                .integer(1), .integer(2), .integer(3), .text("x"), .text("y"), .blob(Data([0, 0xFF])),
                .integer(1), .integer(0), .real(1.5), .real(2.5), .null, .text("n"),
                .integer(Int64.min), .text("tëxt"), .blob(Data()), .blob(Data([0, 1, 2])), .real(-0.25), .text("?"), .null,
            ])
            expectStoreError(.failure, "numeric has no binary decoder") {
                try store.database.read { try $0.query("SELECT 1.5::numeric") }
            }
            expectStoreError(.failure) { try store.database.read { try $0.query("SELECT * FROM nowhere") } }
        }
    }

    @Test("statement timeout is unavailable, and the connection stays usable")
    func statementTimeout() throws {
        try withHarness(.postgresql) { harness in
            let store = try harness.open(postgres: PostgresOptions(poolSize: 1, statementTimeoutMilliseconds: 200))
            defer { store.close() }
            expectStoreError(.unavailable) { try store.database.read { try $0.query("SELECT pg_sleep(5)") } }
            try store.ping()
        }
    }

    @Test("a transaction rolls back on error; the connection is reused cleanly")
    func transactionRollback() throws {
        try withHarness(.postgresql) { harness in
            let store = try harness.open(postgres: PostgresOptions(poolSize: 1))
            defer { store.close() }
            expectStoreError(.duplicate) {
                try store.database.transaction { connection in
                    try connection.execute("INSERT INTO counters (key, value, updated_at) VALUES ('r', 1, 0)")
                    try connection.execute("INSERT INTO counters (key, value, updated_at) VALUES ('r', 2, 0)")
                }
            }
            #expect(try store.value("r") == 0)
            // A body that fails outside SQL leaves no open transaction behind either.
            struct Abort: Error {}
            #expect(throws: Abort.self) {
                try store.database.transaction { connection in
                    try connection.execute("INSERT INTO counters (key, value, updated_at) VALUES ('s', 1, 0)")
                    throw Abort()
                }
            }
            #expect(try store.value("s") == 0)
            #expect(try store.increment("r", limit: 2, now: testNow) == 1)
        }
    }

    @Test("a pool with every connection busy answers unavailable after the acquire timeout")
    func poolExhausted() throws {
        try withHarness(.postgresql) { harness in
            let store = try harness.open(postgres: PostgresOptions(poolSize: 1, acquireTimeoutSeconds: 0.2))
            defer { store.close() }
            let busy = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            Thread {
                _ = try? store.database.read { _ in
                    busy.signal()
                    release.wait()
                }
                busy.signal()
            }.start()
            busy.wait()
            expectStoreError(.unavailable) { try store.ping() }
            release.signal()
            busy.wait()
            try store.ping()
        }
    }

    @Test("schemas isolate stores sharing one database")
    func schemaIsolation() throws {
        try withStore(.postgresql) { first, _ in
            try withStore(.postgresql) { second, _ in
                try first.issue(ConformanceCheck.token("iso"))
                #expect(try second.peek(purpose: "activation", digest: digest("iso"), now: testNow) == nil)
                #expect(try first.peek(purpose: "activation", digest: digest("iso"), now: testNow) != nil)
            }
        }
        expectStoreError(.failure) {
            try SQLStore.openPostgres(url: TestEnvironment.postgresURL ?? "", options: PostgresOptions(schema: "Bad-Name"))
        }
    }
}

extension PostgresStoreTests {
    /// Stops and restarts the scratch server, so it runs only when the test runner says
    /// nothing else uses that server meanwhile: `CUSTOS_TEST_PG_OUTAGE=1`, which
    /// scripts/run-tests.sh sets in a pass of its own (`--filter PostgresOutage`), after a
    /// first pass with `--skip PostgresOutage`. Nested in the serialized suite so that it
    /// never overlaps this target's other PostgreSQL tests either.
    @Suite(
        "PostgreSQL outage",
        .enabled(
            if: TestEnvironment.pgCtl != nil && TestEnvironment.outageAllowed,
            "needs CUSTOS_TEST_PG_CTL and CUSTOS_TEST_PG_OUTAGE=1 (scripts/run-tests.sh runs it in a pass of its own)"
        )
    )
    struct PostgresOutageTests {
        @Test("after the server stops calls fail fast; after it restarts they succeed again", .timeLimit(.minutes(2)))
        func reconnect() throws {
            let control = try #require(TestEnvironment.pgCtl)
            try withHarness(.postgresql) { harness in
                let store = try harness.open(postgres: PostgresOptions(poolSize: 2, connectTimeoutSeconds: 2))
                defer { store.close() }
                let before = ConformanceCheck.token("before-outage")
                try store.issue(before)
                try store.createUser(ConformanceCheck.user("outage-user"))
                try store.addDevice(ConformanceCheck.device("outage-device", user: "outage-user"))
                // Put both pooled connections to use, so both have to notice the outage.
                _ = runConcurrently(4) { _ in try store.ping() }
                #expect(try store.increment("outage", limit: 10, now: testNow) == 1)

                try pgCtl(control, "stop")
                var restarted = false
                defer { if !restarted { try? pgCtl(control, "start") } }

                for _ in 0..<3 {
                    expectStoreError(.unavailable) { try store.ping() }
                    expectStoreError(.unavailable) { try store.consume(purpose: before.purpose, digest: before.digest, now: testNow) }
                    expectStoreError(.unavailable) { try store.increment("outage", limit: 10, now: testNow) }
                    expectStoreError(.unavailable) { try store.issue(ConformanceCheck.token("during-outage")) }
                    expectStoreError(.unavailable) { try store.user(id: "outage-user") }
                    // Transactions fail as unavailable too, and leave nothing half done.
                    expectStoreError(.unavailable) { try store.revokeDevice(id: "outage-device", at: testNow) }
                    expectStoreError(.unavailable) { try store.deleteUser(id: "outage-user") }
                }
                expectStoreError(.unavailable, "a new store cannot open while the server is down") { try harness.open() }

                try pgCtl(control, "start")
                restarted = true
                // The same store, without restarting anything, works again.
                try store.ping()
                #expect(try store.consume(purpose: before.purpose, digest: before.digest, now: testNow) == before)
                #expect(try store.increment("outage", limit: 10, now: testNow) == 2)
                #expect(try store.device(id: "outage-device")?.isRevoked == false)
                #expect(try store.deleteUser(id: "outage-user"))
                let results = runConcurrently(4) { i in try store.increment("after-\(i)", limit: 1, now: testNow) }
                #expect(results.allSatisfy { (try? $0.get()) == 1 })
            }
        }

        /// A frozen server (its processes stopped: a hung host) accepts connections and bytes but
        /// never answers, and cannot time out its own statements: without a client-side limit a
        /// call would wait as long as the freeze lasts. The test's time limit is what catches a hang.
        @Test("a frozen server is given up after the statement timeout and a second; thawed, it serves the same store",
              .timeLimit(.minutes(2)))
        func frozen() throws {
            let control = try #require(TestEnvironment.pgCtl)
            try withHarness(.postgresql) { harness in
                let options = PostgresOptions(poolSize: 2, connectTimeoutSeconds: 2, statementTimeoutMilliseconds: 1000)
                #expect(options.answerTimeoutSeconds == 2)
                let store = try harness.open(postgres: options)
                defer { store.close() }
                let token = ConformanceCheck.token("before-freeze")
                try store.issue(token)
                #expect(try store.increment("frozen", limit: 10, now: testNow) == 1)
                _ = runConcurrently(4) { _ in try store.ping() }

                try pgCtl(control, "freeze")
                var thawed = false
                defer { if !thawed { try? pgCtl(control, "thaw") } }
                // Both pooled connections give up on the server and connect anew (connect_timeout) on their next use.
                for _ in 0..<2 {
                    expectStoreError(.unavailable) { try store.ping() }
                    expectStoreError(.unavailable) { try store.consume(purpose: token.purpose, digest: token.digest, now: testNow) }
                    expectStoreError(.unavailable) { try store.increment("frozen", limit: 10, now: testNow) }
                }
                try pgCtl(control, "thaw")
                thawed = true
                // The same store serves again. (What a frozen call had sent may still run once the
                // server reads it, as after any lost connection: the caller was told 503, not success.)
                try store.ping()
                let after = ConformanceCheck.token("after-freeze")
                try store.issue(after)
                #expect(try store.consume(purpose: after.purpose, digest: after.digest, now: testNow) == after)
                #expect(try store.increment("after-freeze", limit: 10, now: testNow) == 1)
            }
        }

        private func pgCtl(_ script: String, _ action: String) throws {
            let status = try runTool(script, [action])
            #expect(status == 0, "\(script) \(action) exited with \(status)")
        }
    }
}

/// With `CUSTOS_REQUIRE_POSTGRES=1` (CI), a missing PostgreSQL is a failure, not a skip.
@Test(
    "PostgreSQL is available when CUSTOS_REQUIRE_POSTGRES=1",
    .enabled(if: TestEnvironment.postgresRequired, "CUSTOS_REQUIRE_POSTGRES is not 1")
)
func postgresIsAvailableWhenRequired() throws {
    let url = try #require(TestEnvironment.postgresURL, "CUSTOS_REQUIRE_POSTGRES=1 but CUSTOS_TEST_DATABASE_URL is not set")
    let store = try SQLStore.openPostgres(url: url, migrate: false)
    defer { store.close() }
    try store.ping()
}
