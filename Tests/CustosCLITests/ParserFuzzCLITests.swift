import CustosTestSupport
import Foundation
import Testing

/// Coverage-guided fuzzing of the parsers that read what clients send, a few seconds a target
/// (Tests/Fuzz/run.sh: libFuzzer with AddressSanitizer over CFaceShim's image decoders, JSON and
/// form bodies, CBOR and WebAuthn data, JOSE, the request path and X-Forwarded-For). A crash, a
/// sanitizer report or a hang fails it; `bench/fuzz.sh` runs longer.
@Suite struct ParserFuzzCLITests {
    @Test func everyParserSurvivesItsFuzzer() throws {
        let script = SharedData.packageRoot.appendingPathComponent("Tests/Fuzz/run.sh").path
        let run = try ChildProcess.run(executable: "/bin/bash", arguments: [script, "5"], environment: ProcessInfo.processInfo.environment)
        let output = String(decoding: run.stdout, as: UTF8.self) + String(decoding: run.stderr, as: UTF8.self)
        print(output)
        #expect(run.status == 0, "\(output)")
        #expect(output.contains("6 passed, 0 failed"), "\(output)")
    }
}
