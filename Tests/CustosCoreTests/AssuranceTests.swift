import CustosAPI
import CustosCore
import Foundation
import Testing

/// The assurance table as docs/security.md states it: what each acr requires, its amr, its AAL.
@Suite struct AssuranceTests {
    @Test func theTableClaimsOnlyWhatTheServerVerifies() {
        #expect(Assurance.table.map(\.acr) == ["urn:custos:acr:0", "urn:custos:acr:1", "urn:custos:acr:3", "urn:custos:acr:4"])
        #expect(Assurance.table.map(\.amr) == [[], ["pwd"], ["swk"], ["face", "user"]])
        #expect(Assurance.table.map(\.aal) == [0, 1, 1, 2])
        // No key is hardware to the server, and no device's own UV bit is a user verification.
        #expect(!Assurance.table.contains { $0.amr.contains("hwk") })
        #expect(Assurance.of(.deviceSignature).amr.contains("user") == false)
        #expect(Assurance.of(.appDefined).amr.isEmpty && Assurance.of(.appDefined).aal == 0)
    }

    @Test func anAnswerMeetsOnlyWhatItProves() {
        let device = Assurance.of(.deviceSignature)
        #expect(device.meets(acr: "urn:custos:acr:3") && device.meets(acr: "urn:custos:acr:1") && device.meets(acr: "urn:custos:acr:0"))
        #expect(!device.meets(acr: "urn:custos:acr:4"))
        #expect(!Assurance.of(.password).meets(acr: "urn:custos:acr:3"), "a password is no device signature")
        #expect(Assurance.of(.serverBiometric).meets(acr: "urn:custos:acr:3"))
        #expect(!device.meets(acr: "urn:custos:acr:2") && !device.meets(acr: "urn:custos:acr:9") && !device.meets(acr: "made-up"))
    }

    /// The table in docs/security.md says what the type says, row by row.
    @Test func theSecurityGuideStatesTheSameTable() throws {
        let guide = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs").appendingPathComponent("security.md"), encoding: .utf8)
        for row in Assurance.table {
            let amr = row.amr.isEmpty ? "none" : row.amr.map { "`\($0)`" }.joined(separator: " ")
            let aal = row.aal == 0 ? "none" : "AAL\(row.aal)"
            #expect(guide.contains("| `\(row.acr)` | \(row.requires) | \(amr) | \(aal) |"), "\(row.acr) missing from docs/security.md's table")
        }
    }
}
