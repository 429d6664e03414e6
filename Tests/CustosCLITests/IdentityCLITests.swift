import CustosAPI
import Foundation
import Testing

/// The identity commands against a real `custos serve`, as an operator and a user would run them.
@Suite(.serialized) struct IdentityCLITests {
    /// A served data directory with a bootstrap admin key and an rp key.
    struct Served {
        let serve: ServeProcess
        let dataDir: String
        let server: String
        let adminKey: String
        let rpKey: String

        /// `database`: a PostgreSQL URL for the keys and the server (SQLite in the data directory when nil).
        init(extra: [String] = [], database: String? = nil) throws {
            dataDir = CLI.temporaryDirectory()
            let store = ["--data-dir", dataDir] + (database.map { ["--database-url", $0] } ?? [])
            // The first admin key straight in the database: no server, no key needed.
            let admin = try CLI.run(["admin", "apikey", "create", "--scope", "admin", "--label", "root", "--json"] + store)
            guard admin.status == 0, let adminInfo = try? WireJSON.decoder().decode(APIKeyInfo.self, from: Data(admin.stdout.utf8)),
                  let adminSecret = adminInfo.key else { throw CLIFailure(result: admin) }
            adminKey = adminSecret
            let rp = try CLI.run(["admin", "apikey", "create", "--scope", "rp"] + store)
            guard rp.status == 0, let rpSecret = rp.stdout.split(separator: "\n").last.map(String.init) else { throw CLIFailure(result: rp) }
            rpKey = rpSecret
            (serve, server) = try Self.start(dataDir, extra + (database.map { ["--database-url", $0] } ?? []))
        }

        /// A new process on the data directory of `previous` (which was stopped or killed).
        init(restarting previous: Served, extra: [String] = []) throws {
            (dataDir, adminKey, rpKey) = (previous.dataDir, previous.adminKey, previous.rpKey)
            (serve, server) = try Self.start(dataDir, extra)
        }

        private static func start(_ dataDir: String, _ extra: [String]) throws -> (ServeProcess, String) {
            let arguments = ["--dev", "--data-dir", dataDir, "--argon2-memory-kib", "64", "--argon2-iterations", "1"]
            let serve = try ServeProcess(arguments + (extra.contains("--port") ? [] : ["--port", "0"]) + extra)
            guard let port = serve.waitForEvent("listening")?["port"] as? Int else {
                throw CLIFailure(result: CLI.Result(status: -1, stdout: "", stderr: serve.logLines.joined(separator: "\n")))
            }
            return (serve, "http://127.0.0.1:\(port)")
        }

        func admin(_ arguments: [String]) throws -> CLI.Result {
            try CLI.run(["admin"] + arguments + ["--server", server], environment: ["CUSTOS_API_KEY": rpKey])
        }

        func stop() { _ = serve.terminate() }
    }

    struct CLIFailure: Error, CustomStringConvertible {
        let result: CLI.Result
        var description: String { "exit \(result.status): \(result.stderr) \(result.stdout)" }
    }

    @Test func bootstrapKeysListAndRevoke() throws {
        let dataDir = CLI.temporaryDirectory()
        let created = try CLI.run(["admin", "apikey", "create", "--scope", "admin", "--label", "ops", "--data-dir", dataDir])
        #expect(created.status == 0)
        #expect(created.stdout.contains("shown once"))
        let secret = try #require(created.stdout.split(separator: "\n").last.map(String.init))
        #expect(secret.hasPrefix("ck_"))
        let listed = try CLI.run(["admin", "apikey", "list", "--json", "--data-dir", dataDir])
        let keys = try WireJSON.decoder().decode(APIKeyList.self, from: Data(listed.stdout.utf8)).apiKeys
        #expect(keys.count == 1)
        #expect(keys[0].key == nil)
        #expect(!listed.stdout.contains(secret))
        #expect(try CLI.run(["admin", "apikey", "revoke", keys[0].id, "--data-dir", dataDir]).status == 0)
        let again = try CLI.run(["admin", "apikey", "revoke", keys[0].id, "--data-dir", dataDir])
        #expect(again.status == 1)
        #expect(again.stderr.contains("no active API key"))
        let badScope = try CLI.run(["admin", "apikey", "create", "--scope", "root", "--data-dir", dataDir])
        #expect(badScope.status == 2)
    }

    @Test func userLifecycleThroughTheCommands() throws {
        let served = try Served()
        defer { served.stop() }
        let profile = CLI.temporaryDirectory() + "/profile"

        let created = try served.admin(["user", "create", "alice", "--json"])
        #expect(created.status == 0, "\(created.stderr)")
        let code = try WireJSON.decoder().decode(CreatedUser.self, from: Data(created.stdout.utf8)).activation.activationCode
        // For scripts (the README's CODE=$(…)): the code alone, one line.
        let codeOnly = try served.admin(["user", "create", "bob", "--code-only"])
        #expect(codeOnly.status == 0 && codeOnly.stdout.split(separator: "\n").count == 1 && codeOnly.stdout.count > 8, "\(codeOnly.stdout)")

        let activated = try CLI.run(["device", "activate", "--user", "alice", "--code", code, "--password-stdin", "--name", "laptop",
                                     "--server", served.server, "--profile", profile], stdin: "a good long password\n")
        #expect(activated.status == 0, "\(activated.stderr)")
        #expect(activated.stdout.contains("activated"))
        let attributes = try FileManager.default.attributesOfItem(atPath: profile + "/profile.json")
        #expect((attributes[.posixPermissions] as? Int) == 0o600)

        let reused = try CLI.run(["device", "activate", "--user", "alice", "--code", code, "--password-stdin",
                                  "--server", served.server, "--profile", CLI.temporaryDirectory()], stdin: "a good long password\n")
        #expect(reused.status == 1)
        #expect(reused.stderr.contains("invalid_activation_code"))

        let login = try CLI.run(["login", "--password-stdin", "--profile", profile, "--json"], stdin: "a good long password\n")
        #expect(login.status == 0)
        #expect(try WireJSON.decoder().decode(AuthenticationResult.self, from: Data(login.stdout.utf8)).statusCode == 100)

        let wrong = try CLI.run(["login", "--password-stdin", "--profile", profile], stdin: "not the password\n")
        #expect(wrong.status == 4)
        #expect(wrong.stdout.contains("4 attempts left"))

        let changed = try CLI.run(["password", "change", "--password-stdin", "--profile", profile],
                                  stdin: "a good long password\nan even better password\n")
        #expect(changed.status == 0, "\(changed.stderr)")
        #expect(try CLI.run(["login", "--password-stdin", "--profile", profile], stdin: "an even better password\n").status == 0)

        for _ in 0..<5 { _ = try CLI.run(["login", "--password-stdin", "--profile", profile], stdin: "wrong again!!\n") }
        let locked = try CLI.run(["login", "--password-stdin", "--profile", profile], stdin: "an even better password\n")
        #expect(locked.status == 6)
        #expect(try served.admin(["user", "show", "alice"]).stdout.contains("locked until"))
        #expect(try served.admin(["user", "unlock", "alice"]).status == 0)
        #expect(try CLI.run(["login", "--password-stdin", "--profile", profile], stdin: "an even better password\n").status == 0)

        // Expired before its time: the next sign-in is 110 (exit 5) with the change to run.
        let expire = try served.admin(["user", "expire-password", "alice"])
        #expect(expire.status == 0 && expire.stdout.contains("password expired: must change"), "\(expire.stdout)\(expire.stderr)")
        let expired = try CLI.run(["login", "--password-stdin", "--profile", profile], stdin: "an even better password\n")
        #expect(expired.status == 5 && expired.stdout.contains("custos password change --token"), "\(expired.stdout)")
        let token = try #require(expired.stdout.split(separator: "'").dropFirst().first?.split(separator: " ").last.map(String.init))
        let renewed = try CLI.run(["password", "change", "--password-stdin", "--token", token, "--profile", profile],
                                  stdin: "an even better password\nthe best password yet\n")
        #expect(renewed.status == 0, "\(renewed.stdout)\(renewed.stderr)")
        #expect(try CLI.run(["login", "--password-stdin", "--profile", profile], stdin: "the best password yet\n").status == 0)

        let devices = try served.admin(["device", "list", "alice"])
        #expect(devices.stdout.contains("laptop"))
        #expect(try CLI.run(["logout", "--profile", profile]).stdout == "logged out\n")

        let disabled = try served.admin(["user", "disable", "alice"])
        #expect(disabled.stdout.contains("disabled"))
        #expect(try CLI.run(["login", "--password-stdin", "--profile", profile], stdin: "the best password yet\n").status == 4)
        #expect(try served.admin(["user", "delete", "alice"]).status == 0)
        let gone = try served.admin(["user", "show", "alice"])
        #expect(gone.status == 1)
        #expect(gone.stderr.contains("user_not_found"))
    }

    @Test func errorsAreOneLineWithTheirExitCodes() throws {
        let served = try Served()
        defer { served.stop() }
        let noKey = try CLI.run(["admin", "user", "list", "--server", served.server])
        #expect(noKey.status == 2)
        #expect(noKey.stderr.contains("an API key is required"))
        let badKey = try CLI.run(["admin", "user", "list", "--server", served.server, "--api-key", "ck_nope"])
        #expect(badKey.status == 1)
        #expect(badKey.stderr == "custos admin user list: invalid_api_key: The API key is missing, unknown or revoked.\n")
        let badID = try served.admin(["user", "create", "not valid!"])
        #expect(badID.status == 1)
        #expect(badID.stderr.contains("invalid_field"))
        let noProfile = try CLI.run(["login", "--profile", CLI.temporaryDirectory()])
        #expect(noProfile.status == 2)
        #expect(noProfile.stderr.contains("run 'custos device activate' first"))
        let noTerminal = try CLI.run(["device", "activate", "--user", "x", "--code", "y", "--server", served.server,
                                      "--profile", CLI.temporaryDirectory()])
        #expect(noTerminal.status == 2)
        #expect(noTerminal.stderr.contains("use --password-stdin"))
        let unreachable = try CLI.run(["admin", "user", "list", "--server", "http://127.0.0.1:1", "--api-key", "ck_x"])
        #expect(unreachable.status == 1)
        #expect(unreachable.stderr.contains("transport_failed"))
    }
}
