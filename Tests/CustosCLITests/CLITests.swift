import CustosAPI
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct CLIBasicsTests {
    @Test func version() throws {
        let result = try CLI.run(["version"])
        #expect(result.status == 0)
        #expect(result.stdout == "custos \(CustosVersion.current)\n")
    }

    @Test func noArgumentsShowsCommandsAndIsAUsageError() throws {
        let result = try CLI.run([])
        #expect(result.status == 2)
        #expect(result.stdout.contains("serve"))
        #expect(result.stdout.contains("migrate"))
    }

    @Test func helpListsEveryCommand() throws {
        for arguments in [["help"], ["--help"]] {
            let result = try CLI.run(arguments)
            #expect(result.status == 0)
            for command in ["serve", "migrate", "version", "help"] { #expect(result.stdout.contains("  \(command) ")) }
        }
    }

    @Test func commandHelpShowsOptionsAndTheirEnvironmentTwins() throws {
        for arguments in [["serve", "--help"], ["help", "serve"]] {
            let result = try CLI.run(arguments)
            #expect(result.status == 0)
            #expect(result.stdout.hasPrefix("usage: custos serve [options]"))
            for expected in ["--host HOST", "--port PORT", "--data-dir DIR", "--database-url URL", "--config PATH", "--dev",
                             "[CUSTOS_PORT]", "[CUSTOS_DATABASE_URL]"] {
                #expect(result.stdout.contains(expected), "missing \(expected)")
            }
        }
    }

    @Test func unknownCommandIsAUsageError() throws {
        let result = try CLI.run(["frobnicate"])
        #expect(result.status == 2)
        #expect(result.stderr == "custos: unknown command 'frobnicate' (see custos help)\n")
    }

    @Test(arguments: [
        (["serve", "--bogus"], "custos serve: unknown option '--bogus' (see custos serve --help)\n"),
        (["serve", "--port"], "custos serve: option '--port' needs a value (see custos serve --help)\n"),
        (["serve", "--dev=yes"], "custos serve: option '--dev' takes no value (see custos serve --help)\n"),
        (["serve", "extra"], "custos serve: unexpected argument 'extra' (see custos serve --help)\n"),
        (["serve", "--port", "http"], "custos serve: invalid port (from --port): 'http' is not an integer in 0...65535 (see custos serve --help)\n"),
        (["version", "--verbose"], "custos version: unknown option '--verbose' (see custos version --help)\n"),
    ])
    func usageErrorsExitTwoWithOneLine(arguments: [String], message: String) throws {
        let result = try CLI.run(arguments)
        #expect(result.status == 2)
        #expect(result.stderr == message)
        #expect(result.stdout.isEmpty)
    }

    @Test func environmentTwinIsValidatedToo() throws {
        let result = try CLI.run(["serve", "--dev"], environment: ["CUSTOS_THREADS": "0"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("invalid threads (from CUSTOS_THREADS)"))
    }

    @Test func serveRefusesToStartWithoutAMasterKeyOutsideDev() throws {
        let result = try CLI.run(["serve", "--data-dir", CLI.temporaryDirectory(), "--port", "0"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("a master key is required"))
    }

    @Test func serveRefusesABadMasterKey() throws {
        let result = try CLI.run(["serve", "--data-dir", CLI.temporaryDirectory(), "--port", "0"],
                                 environment: ["CUSTOS_MASTER_KEY": "dG9vLXNob3J0"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("CUSTOS_MASTER_KEY is not a valid master key"))
        #expect(!result.stderr.contains("dG9vLXNob3J0"))
    }

    @Test func migrateCreatesTheSchemaAndIsIdempotent() throws {
        let directory = CLI.temporaryDirectory()
        let first = try CLI.run(["migrate", "--data-dir", directory])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("applied: 1, 2"))
        let second = try CLI.run(["migrate"], environment: ["CUSTOS_DATA_DIR": directory])
        #expect(second.status == 0)
        #expect(second.stdout.contains("applied: none"))
        #expect(FileManager.default.fileExists(atPath: directory + "/custos.sqlite"))
    }
}

@Suite struct CLIServeTests {
    @Test func serveInDevModeAnswersAndStopsCleanlyOnSIGTERM() async throws {
        let directory = CLI.temporaryDirectory() + "/data"
        let serve = try ServeProcess(["--dev", "--port", "0", "--data-dir", directory])
        let listening = try #require(serve.waitForEvent("listening"), "no listening line; log: \(serve.logLines)")
        #expect(serve.events.first?["event"] as? String == "listening")
        let port = try #require(listening["port"] as? Int)
        #expect(port > 0)

        let (data, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/healthz")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(try JSONDecoder().decode(HealthStatus.self, from: data).status == "ok")

        #expect(serve.waitForEvent("development_mode") != nil)
        let keyPath = directory + "/dev-master-key"
        let attributes = try FileManager.default.attributesOfItem(atPath: keyPath)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let key = try String(contentsOfFile: keyPath, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(!serve.logLines.joined().contains(key), "the master key must never be logged")

        #expect(serve.terminate() == 0)
        #expect(serve.events.contains { $0["event"] as? String == "stopped" })
    }

    /// With every connection of the main port taken (idle clients at `--max-connections`), the
    /// main port turns new clients away and probes still get their answers on `--probe-port`.
    @Test func probesAnswerOnTheirOwnPortWhenTheMainOneIsFull() throws {
        let serve = try ServeProcess(["--dev", "--port", "0", "--probe-port", "0", "--max-connections", "4", "--threads", "1",
                                      "--data-dir", CLI.temporaryDirectory()])
        defer { _ = serve.terminate() }
        let port = try #require(serve.waitForEvent("listening")?["port"] as? Int, "log: \(serve.logLines)")
        let probePort = try #require(serve.waitForEvent("probe_listening")?["port"] as? Int, "log: \(serve.logLines)")
        #expect(probePort != port)
        #expect(LoopbackHTTP.status(port: port, path: "/healthz") == 200)

        let idle = (0..<4).compactMap { _ in LoopbackHTTP.connect(port: port) }
        defer { idle.forEach { close($0) } }
        #expect(idle.count == 4)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(LoopbackHTTP.status(port: port, path: "/healthz") == nil)
        #expect(LoopbackHTTP.status(port: probePort, path: "/healthz") == 200)
        #expect(LoopbackHTTP.status(port: probePort, path: "/readyz") == 200)
        #expect(LoopbackHTTP.status(port: probePort, path: "/v1/users/someone") == 404)
    }

    @Test func devKeyIsKeptAcrossRestarts() throws {
        let directory = CLI.temporaryDirectory()
        var keyIDs: [String] = []
        for _ in 0..<2 {
            let serve = try ServeProcess(["--dev", "--port", "0"], environment: ["CUSTOS_DATA_DIR": directory])
            let warning = try #require(serve.waitForEvent("development_mode"))
            keyIDs.append(try #require(warning["master_key_id"] as? String))
            #expect(serve.terminate(signal: SIGINT) == 0)
        }
        #expect(keyIDs[0] == keyIDs[1])
    }

    @Test func portInUseIsAClearFailure() throws {
        let directory = CLI.temporaryDirectory()
        let first = try ServeProcess(["--dev", "--port", "0", "--data-dir", directory])
        let port = try #require(first.waitForEvent("listening")?["port"] as? Int)
        defer { _ = first.terminate() }
        let second = try CLI.run(["serve", "--dev", "--port", String(port), "--data-dir", CLI.temporaryDirectory()])
        #expect(second.status == 1)
        #expect(second.stderr.contains("cannot listen on 127.0.0.1:\(port)"))
    }
}
