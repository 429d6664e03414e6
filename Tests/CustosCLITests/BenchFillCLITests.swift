import CustosCore
import Foundation
import Testing

@testable import CustosStore

/// `custos bench fill`: the synthetic year bench/scale.sh measures against is made of rows the
/// server itself would accept — an audit chain that verifies after the events already there,
/// users the relying party's key lists, takes sealed for their user.
@Suite struct BenchFillCLITests {
    @Test func fillsAYearThatVerifiesAndBelongsToTheRelyingParty() throws {
        let dataDir = CLI.temporaryDirectory()
        let refused = try CLI.run(["bench", "fill", "--dev", "--data-dir", dataDir, "--users", "3"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("no relying-party API key"), "\(refused.stderr)")

        let badPrefix = try CLI.run(["bench", "fill", "--dev", "--data-dir", dataDir, "--users", "3", "--prefix", "a:b"])
        #expect(badPrefix.status == 2 && badPrefix.stderr.contains("--prefix must be"), "\(badPrefix.stderr)")

        let key = try CLI.run(["admin", "apikey", "create", "--scope", "rp", "--label", "fill", "--data-dir", dataDir])
        #expect(key.status == 0, "\(key.stderr)")
        let filled = try CLI.run(["bench", "fill", "--dev", "--data-dir", dataDir, "--users", "120", "--audit-per-user", "7"])
        #expect(filled.status == 0, "\(filled.stderr)")
        #expect(filled.stdout.contains("fill: 120 users in"), "\(filled.stdout)")
        #expect(filled.stdout.contains("rows: users 120\n") && filled.stdout.contains("rows: audit_events \(120 * 7)\n"), "\(filled.stdout)")
        #expect(filled.stdout.contains("rows: frame_memories 5\n"), "one user in a hundred has five takes: \(filled.stdout)")

        let takes = try CLI.run(["bench", "fill", "--dev", "--data-dir", dataDir, "--takes", "3", "--take-users", "fill-0000007"])
        #expect(takes.status == 0, "\(takes.stderr)")
        #expect(takes.stdout.contains("rows: frame_memories 8\n"), "\(takes.stdout)")

        let verified = try CLI.run(["admin", "audit", "verify", "--dev", "--data-dir", dataDir])
        #expect(verified.status == 0, "\(verified.stdout)\(verified.stderr)")
        #expect(verified.stdout.hasPrefix("audit chain intact: \(120 * 7) events\n"), "\(verified.stdout)")

        let store = try SQLStore.openSQLite(path: dataDir + "/" + SQLStore.defaultSQLiteFileName)
        defer { store.close() }
        let rpKey = try #require(try store.apiKeys().first)
        #expect(try store.users(after: nil, limit: 500, createdBy: rpKey.id).count == 120)
        #expect(try store.users(after: nil, limit: 1, createdBy: nil).first?.id == "fill-0000001")
        let devices = try store.devices(userID: "fill-0000120")
        #expect(devices.count == 1 && devices[0].revokedAt == nil)
        #expect(try store.notifications(userID: "fill-0000120", open: false, now: Date(), limit: 10).count == 2)
    }
}
