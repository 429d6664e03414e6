import CustosTestSupport
import Foundation
import Testing

/// Fault injection in make test: `Tests/Clients/faults.py --short` against the built binary.
/// `custos serve` killed with SIGKILL under a write-heavy mixed load and restarted on the same
/// data (SQLite, and PostgreSQL where the environment has one), with a client-side ledger of every
/// acknowledged write checked after the restart, the audit chain verified, SQLite's integrity
/// checked and the webhook outbox resumed; SQLite on a full disk and on a disk turned read-only.
/// `bench/faults.sh` runs the same scenarios longer (several rounds).
@Suite(.serialized, .enabled(if: OutsideClients.shouldRun, Comment(rawValue: OutsideClients.missingMessage)))
struct FaultsCLITests {
    /// Runs the short version of `scenarios`, prints what it printed, and checks the verdict:
    /// exit 0 and the line `N passed, 0 failed`.
    static func runShort(_ scenarios: String, stores: String = "sqlite,postgresql") throws -> String {
        // A request counts as hung only past the suites' own patience: make test loads two cores with every suite at once.
        let run = try OutsideClients.run("faults.py", ["--short", "--binary", CLI.binary.path, "--scenarios", scenarios, "--stores", stores,
                                                       "--request-timeout", String(Int(TestEnvironment.requestTimeout))])
        print(run.output)
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(run.status == 0, "faults.py exited \(run.status):\n\(run.output)")
        let verdict = lines.first { $0.range(of: #"^[0-9]+ passed, [0-9]+ failed$"#, options: .regularExpression) != nil }
        #expect(verdict?.hasSuffix(" passed, 0 failed") == true, "\(verdict ?? "no verdict line"):\n\(lines.suffix(8).joined(separator: "\n"))")
        return run.output
    }

    @Test(.timeLimit(.minutes(5)))
    func aServerKilledUnderLoadLosesNoAcknowledgedWrite() throws {
        let output = try Self.runShort("kill")
        #expect(output.contains("PASS kill/sqlite: no acknowledged write lost"), "\(output)")
        #expect(output.contains("PASS kill/sqlite: outbox resumed"), "\(output)")
        #expect(output.contains("PASS kill/sqlite: audit chain ok"), "\(output)")
        #expect(output.contains("PASS kill/sqlite: integrity ok"), "\(output)")
        if TestEnvironment.postgresURL != nil || TestEnvironment.postgresRequired {
            #expect(output.contains("PASS kill/postgresql: no acknowledged write lost"), "\(output)")
            #expect(output.contains("PASS kill/postgresql: audit chain ok"), "\(output)")
        }
    }

    /// A node killed while it judges ten right passwords of one user leaves the attempts they
    /// took held: they are leases, and come back by themselves (on the node restarted on SQLite,
    /// on the other node that kept running on PostgreSQL).
    @Test(.timeLimit(.minutes(5)))
    func attemptsHeldByAKilledNodeComeBackByThemselves() throws {
        let output = try Self.runShort("leaked-attempts")
        #expect(output.contains("PASS leaked-attempts/sqlite: the held attempts come back by themselves"), "\(output)")
        if TestEnvironment.postgresURL != nil || TestEnvironment.postgresRequired {
            #expect(output.contains("PASS leaked-attempts/postgresql: the held attempts come back by themselves"), "\(output)")
        }
    }

    /// 250 concurrent uploads of about 6 MB from 2, then 16 client addresses: what their bodies
    /// hold is bounded by the upload memory (past it 429 and 503 at once), and the memory comes
    /// back when they end (it stayed held, +317 MiB, while the worker queue kept each job's
    /// closure after running it).
    @Test(.timeLimit(.minutes(5)))
    func aBurstOfLargeUploadsHoldsBoundedMemoryAndGivesItBack() throws {
        let output = try Self.runShort("uploads", stores: "sqlite")
        for burst in ["2 addresses", "16 addresses", "16 addresses again"] {
            #expect(output.contains("PASS uploads/sqlite: \(burst): peak memory bounded"), "\(output)")
            #expect(output.contains("PASS uploads/sqlite: \(burst): memory returns"), "\(output)")
        }
    }

    /// 1,000 connections trickling header lines hold every connection of the main port: the
    /// probe port answers throughout, and the header deadline cuts every one of them.
    @Test(.timeLimit(.minutes(5)))
    func tricklingClientsAreCutAndProbesKeepAWayIn() throws {
        let output = try Self.runShort("slow-clients", stores: "sqlite")
        #expect(output.contains("PASS slow-clients: probes answer while every connection is taken"), "\(output)")
        #expect(output.contains("PASS slow-clients: trickling connections are cut at the header deadline"), "\(output)")
    }

    /// Needs mounts (root): where this environment cannot mount, faults.py says so and skips.
    @Test(.timeLimit(.minutes(5)))
    func aFullOrReadOnlyDiskAnswersClearErrorsAndCorruptsNothing() throws {
        let output = try Self.runShort("disk-full,read-only", stores: "sqlite")
        for scenario in ["disk-full", "read-only"] where !output.contains("SKIP \(scenario):") {
            #expect(output.contains("PASS \(scenario): integrity ok"), "\(output)")
        }
    }
}

/// PostgreSQL stopped under load and started again: it stops the shared PostgreSQL server, so it
/// runs only in scripts/run-tests.sh's outage pass (`--filter PostgresOutage`, CUSTOS_TEST_PG_OUTAGE=1).
@Suite(.serialized, .enabled(if: TestEnvironment.outageAllowed && TestEnvironment.postgresURL != nil && TestEnvironment.pgCtl != nil
                             && OutsideClients.shouldRun, "PostgreSQL outage tests run in their own pass (make test)"))
struct PostgresOutageFaultsCLITests {
    @Test(.timeLimit(.minutes(3)))
    func requestsAnswer503QuicklyAndTheSameProcessRecovers() throws {
        let output = try FaultsCLITests.runShort("pg-outage")
        for check in ["requests answer 503 database_unavailable", "no request hangs", "the process keeps running", "recovers without a restart",
                      "no acknowledged write lost"] {
            #expect(output.contains("PASS pg-outage: \(check)"), "\(check): \(output)")
        }
    }
}
