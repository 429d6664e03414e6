import CustosTestSupport
import Foundation
import Testing

/// The data records which master key sealed it: another key, or `--dev` against data made
/// with a real key, stops with a clear message before anything is read or written.
@Suite struct MasterKeyCLITests {
    @Test func aDataDirectoryRefusesAnotherMasterKey() throws {
        let dataDir = CLI.temporaryDirectory()
        let first = try CLI.run(["admin", "keys", "rotate-signing", "--dev", "--data-dir", dataDir])
        #expect(first.status == 0, "\(first.stderr)")
        let keyFile = dataDir + "/other-key"
        let other = Data((0..<32).map { UInt8($0) }).base64EncodedString()
        try Data((other + "\n").utf8).write(to: URL(fileURLWithPath: keyFile))

        let rotate = try CLI.run(["admin", "keys", "rotate", "--master-key-file", keyFile, "--data-dir", dataDir])
        #expect(rotate.status == 1)
        #expect(rotate.stderr.contains("this data is sealed with master key") && rotate.stderr.contains("the master key file \(keyFile)"),
                "\(rotate.stderr)")
        let serve = try CLI.run(["serve", "--master-key-file", keyFile, "--data-dir", dataDir, "--port", "0", "--idv=false"])
        #expect(serve.status == 1 && serve.stderr.contains("this data is sealed with master key"), "\(serve.stderr)")
        // The key it was made with still works.
        #expect(try CLI.run(["admin", "keys", "rotate-signing", "--dev", "--data-dir", dataDir]).status == 0)
    }
}
