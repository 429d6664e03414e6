import CustosTestSupport
import Foundation
import Testing

/// `custos demo` end to end: it serves itself and runs opt-in, authentication and KYC on the
/// sample frames; a second run draws other frames.
@Suite(needsReleaseBuildAndFaces)
struct DemoCLITests {
    @Test func twoRunsEachPassEveryStepOnDifferentFrames() throws {
        let environment = ["CUSTOS_SHARED_DATA": SharedData.root.path]
        let runs = try (1...2).map { _ in try CLI.run(["demo"], environment: environment) }
        for run in runs {
            #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
            #expect(run.stdout.contains("1. biometric opt-in (workflow 10)") && run.stdout.contains("  ENROLLED (SUCCESS)"), "\(run.stdout)")
            #expect(run.stdout.components(separatedBy: "  MATCHED (SUCCESS)").count == 3, "\(run.stdout)")
        }
        let windows = runs.map { $0.stdout.split(separator: "\n").filter { $0.contains(" of blink_selfie:") } }
        #expect(windows[0].count == 3 && windows[0] != windows[1])
    }

    @Test func missingSampleDataIsAUsageError() throws {
        let result = try CLI.run(["demo", "--data", "/nonexistent"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("no sample frames in /nonexistent"))
    }
}
