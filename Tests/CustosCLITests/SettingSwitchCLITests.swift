import Foundation
import Testing

/// Boolean settings are switches: `--name` turns one on, `--name=false` / `--name=true` say
/// which, overriding the environment.
@Suite struct SettingSwitchCLITests {
    @Test func helpShowsTheSwitchSpelling() throws {
        let help = try CLI.run(["serve", "--help"])
        #expect(help.stdout.contains("--idv[=true|false]"))
        #expect(help.stdout.contains("--dev[=true|false]"))
    }

    @Test func equalsFalseTurnsBiometricsOffOverTheEnvironment() throws {
        for arguments in [["--dev", "--idv=false"], ["--dev=true", "--idv", "--idv=false"]] {
            let serve = try ServeProcess(["--port", "0", "--data-dir", CLI.temporaryDirectory()] + arguments,
                                         environment: ["CUSTOS_IDV": "true"])
            let configuration = try #require(serve.waitForEvent("configuration"), "log: \(serve.logLines)")
            #expect((configuration["idv"] as? String)?.hasPrefix("false") == true, "\(configuration)")
            #expect((configuration["dev"] as? String)?.hasPrefix("true") == true, "\(configuration)")
            #expect(serve.terminate() == 0)
        }
    }

    @Test(arguments: [
        (["serve", "--idv", "false"], "custos serve: write '--idv=false' (a switch takes its value after '=') (see custos serve --help)\n"),
        (["serve", "--idv=maybe"], "custos serve: option '--idv' takes no value (see custos serve --help)\n"),
    ])
    func otherSpellingsAreUsageErrors(arguments: [String], message: String) throws {
        let result = try CLI.run(arguments)
        #expect(result.status == 2)
        #expect(result.stderr == message)
    }
}
