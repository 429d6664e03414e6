import CustosAPI
import Foundation
import Testing

/// The device and admin commands' edges: sessions the server already ended, a failed
/// re-activation, what `admin user show` prints, option ranges, and `bench login`.
@Suite(.serialized) struct ClientCommandsCLITests {
    typealias Served = IdentityCLITests.Served

    /// A user activated on a fresh profile; returns the profile directory.
    func activatedProfile(_ served: Served, _ userID: String) throws -> String {
        let created = try served.admin(["user", "create", userID, "--json"])
        #expect(created.status == 0, "\(created.stderr)")
        let code = try WireJSON.decoder().decode(CreatedUser.self, from: Data(created.stdout.utf8)).activation.activationCode
        let profile = CLI.temporaryDirectory() + "/profile"
        let activated = try CLI.run(["device", "activate", "--user", userID, "--code", code, "--password-stdin", "--name", "laptop",
                                     "--server", served.server, "--profile", profile], stdin: "a good long password\n")
        #expect(activated.status == 0, "\(activated.stderr)")
        return profile
    }

    func sessionToken(_ profile: String) throws -> String? {
        let data = try Data(contentsOf: URL(fileURLWithPath: profile + "/profile.json"))
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return object?["session_token"] as? String
    }

    @Test func logoutForgetsASessionTheServerAlreadyEnded() throws {
        let served = try Served(extra: ["--idv=false"])
        defer { served.stop() }
        let profile = try activatedProfile(served, "erin")
        #expect(try sessionToken(profile) != nil)
        // Disabling the user ends its sessions on the server: the profile's token is stale.
        #expect(try served.admin(["user", "disable", "erin"]).status == 0)
        let logout = try CLI.run(["logout", "--profile", profile])
        #expect(logout.status == 0, "\(logout.stderr)")
        #expect(logout.stdout == "the session had already ended; logged out\n")
        #expect(try sessionToken(profile) == nil)
        #expect(try CLI.run(["logout", "--profile", profile]).stdout == "not logged in\n")
    }

    @Test func aFailedReactivationKeepsTheWorkingDeviceKey() throws {
        let served = try Served(extra: ["--idv=false"])
        defer { served.stop() }
        let profile = try activatedProfile(served, "finn")
        let keys = try FileManager.default.contentsOfDirectory(atPath: profile + "/keys")
        let wrong = try CLI.run(["device", "activate", "--user", "finn", "--code", "WRONG-CODE-0000", "--password-stdin",
                                 "--server", served.server, "--profile", profile], stdin: "a good long password\n")
        #expect(wrong.status == 1)
        #expect(wrong.stderr.contains("invalid_activation_code"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: profile + "/keys") == keys)
        let login = try CLI.run(["login", "--password-stdin", "--profile", profile], stdin: "a good long password\n")
        #expect(login.status == 0, "\(login.stderr) \(login.stdout)")
    }

    @Test func userShowSaysWhenThePasswordChanged() throws {
        let served = try Served(extra: ["--idv=false"])
        defer { served.stop() }
        _ = try activatedProfile(served, "gail")
        let shown = try served.admin(["user", "show", "gail"])
        #expect(shown.status == 0)
        #expect(shown.stdout.contains("gail  active  password changed 20"), "\(shown.stdout)")
    }

    @Test func integerOptionsAreCheckedAgainstTheirRange() throws {
        for (arguments, message) in [
            (["admin", "user", "list", "--limit", "501", "--api-key", "ck_x"], "--limit must be an integer in 1...500, got '501'"),
            (["bench", "login", "--seconds", "0", "--api-key", "ck_x"], "--seconds must be an integer in 1...86400, got '0'"),
            (["bench", "idv", "--enroll", "e", "--frames", "f", "--fps", "500", "--api-key", "ck_x"],
             "--fps must be a number in (0, 240], got '500'"),
            (["bench", "idv", "--enroll", "e", "--frames", "f", "--concurrency", "x", "--api-key", "ck_x"],
             "--concurrency must be an integer in 1...1000, got 'x'"),
        ] {
            let result = try CLI.run(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.contains(message), "\(result.stderr)")
        }
    }

    @Test func benchLoginReportsServerRefusalsAsFailuresAndLeavesNoKeys() throws {
        // A benchmark signs in far past the per-address rate limit, as bench/login.sh does.
        let served = try Served(extra: ["--idv=false", "--rate-limit-per-ip", "0"])
        defer { served.stop() }
        let temporary = FileManager.default.temporaryDirectory.path
        let benchDirectories = { try FileManager.default.contentsOfDirectory(atPath: temporary).filter { $0.hasPrefix("custos-bench-") } }
        let before = Set(try benchDirectories())

        let measured = try served.bench(["login", "--seconds", "1", "--concurrency", "1"])
        #expect(measured.status == 0, "\(measured.stderr)")
        #expect(measured.stdout.contains("device+password logins:"))

        // The policy asks for the password: device-only logins are refused (401), a failure of the run.
        let refused = try served.bench(["login", "--seconds", "1", "--concurrency", "1", "--no-password"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("answered 401"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("--help"))
        #expect(Set(try benchDirectories()).subtracting(before).isEmpty)
    }
}

extension IdentityCLITests.Served {
    /// `custos bench …` against this server with the rp key.
    func bench(_ arguments: [String]) throws -> CLI.Result {
        try CLI.run(["bench"] + arguments + ["--server", server], environment: ["CUSTOS_API_KEY": rpKey])
    }
}
