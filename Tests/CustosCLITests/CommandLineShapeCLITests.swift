import CustosAPI
import Foundation
import Testing

/// How the command line finds its way: groups, typos, `--version`, typed options with their
/// help, checks before a command runs, and which exit status says what.
@Suite struct CommandLineShapeCLITests {
    @Test func aBareGroupListsItsCommandsOnStandardErrorAsAUsageError() throws {
        let result = try CLI.run(["admin"])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("usage: custos admin COMMAND [options]\n"))
        #expect(result.stderr.contains("  admin user create "))
        #expect(result.stderr.contains("  admin keys rotate-master "))
    }

    @Test(arguments: [["admin", "--help"], ["help", "admin"], ["admin", "-h"]])
    func askingForAGroupsHelpListsItsCommands(arguments: [String]) throws {
        let result = try CLI.run(arguments)
        #expect(result.status == 0)
        #expect(result.stdout.contains("  admin apikey create "))
        #expect(result.stdout.contains("Create a user and print its one-time activation code."))
    }

    @Test func aNestedGroupListsOnlyItsOwnCommands() throws {
        for arguments in [["admin", "user", "--help"], ["help", "admin", "user"]] {
            let result = try CLI.run(arguments)
            #expect(result.status == 0)
            #expect(result.stdout.contains("  admin user list "))
            #expect(!result.stdout.contains("admin apikey"))
        }
        let idv = try CLI.run(["idv"])
        #expect(idv.status == 2 && idv.stderr.contains("  idv authenticate "))
    }

    @Test func aMistypedCommandIsAnsweredWithTheNearestOne() throws {
        let result = try CLI.run(["admn", "user", "list"])
        #expect(result.status == 2)
        #expect(result.stderr == "custos: unknown command 'admn user list'; did you mean 'admin user list'? (see custos help)\n")
        let help = try CLI.run(["help", "admin", "usr"])
        #expect(help.status == 2 && help.stderr.contains("did you mean 'admin user'?"))
        #expect(try CLI.run(["frobnicate"]).stderr == "custos: unknown command 'frobnicate' (see custos help)\n")
    }

    @Test func versionFlag() throws {
        let result = try CLI.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout == "custos \(CustosVersion.current)\n")
    }

    @Test func helpShowsTypedPlaceholdersDefaultsArgumentsAndAnExample() throws {
        let list = try CLI.run(["admin", "audit", "list", "--help"]).stdout
        for expected in ["--limit N", "page size 1-1000 (default 100)", "--after SEQ", "(default 0)", "example:\n  custos admin audit list"] {
            #expect(list.contains(expected), "missing \(expected)")
        }
        let create = try CLI.run(["admin", "user", "create", "--help"]).stdout
        #expect(create.hasPrefix("usage: custos admin user create [options] USER\n"))
        #expect(create.contains("arguments:\n  USER  the user id\n"))
        let authenticate = try CLI.run(["idv", "authenticate", "--help"]).stdout
        #expect(authenticate.contains("--fps FPS") && authenticate.contains("(default 10)"))
        #expect(try CLI.run(["serve", "--help"]).stdout.contains("--take-memory-days N"))
        let exchange = try CLI.run(["token", "exchange", "--help"]).stdout
        #expect(exchange.contains("the authorization code (required)") && !exchange.contains("the PKCE code verifier (required)"))
    }

    @Test(arguments: [
        (["admin", "audit", "list", "--limit", "0"], "--limit must be an integer in 1...1000, got '0'"),
        (["admin", "apikey", "create", "--scope", "root"], "--scope must be admin or rp, got 'root'"),
        (["admin", "idv", "document", "t1", "--side", "top", "--out", "x"], "--side must be front or back, got 'top'"),
        (["admin", "audit", "verify", "--expect-head", "7"], "--expect-head must be SEQ:HASH as verify prints it"),
        (["device", "activate", "--server", "ftp://x"], "--server must be an http(s) URL, got 'ftp://x'"),
        // Options with no default of their own: a value they do not take is refused, never read as "not given".
        (["face", "analyze", "--preset", "bogus", "x.jpg"], "--preset must be selfie or peer or thorough, got 'bogus'"),
        (["face", "analyze", "--detector", "svm", "x.jpg"], "--detector must be hog or cnn, got 'svm'"),
        (["face", "compare", "--jitters", "500", "a.jpg", "b.jpg"], "--jitters must be an integer in 0...100, got '500'"),
        (["eval", "calibrate", "--identities", "/tmp", "--target-fmr", "2"], "--target-fmr must be a rate between 0 and 1 (exclusive), got '2'"),
        (["eval", "liveness", "--data", "/tmp", "--window", "1"], "--window must be an integer in 3...40, got '1'"),
        (["notifications", "act", "u", "approve", "--number", "5"], "--number must be a number from 10 to 99, got '5'"),
        (["bench", "idv", "--enroll", "a", "--frames", "b", "--enroll-fps", "0"], "--enroll-fps must be a number in (0, 240], got '0'"),
    ])
    func aValueThatDoesNotFitItsTypeIsAUsageErrorBeforeAnythingRuns(arguments: [String], message: String) throws {
        let result = try CLI.run(arguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    /// The checks of a command's declaration run before its profile, database or server is touched:
    /// here there is no profile at all, and the answer is still about the options.
    @Test(arguments: [
        (["idv", "optin"], "--frames DIR is required"),
        (["idv", "authenticate", "--frames", "/nonexistent"], "--frames: /nonexistent is not a folder"),
        (["idv", "kyc", "--frames", "/tmp"], "--document IMAGE is required"),
        (["idv", "document-scan"], "--front IMAGE is required"),
        (["idv", "document-scan", "--front", "/nonexistent.jpg"], "--front: no file /nonexistent.jpg"),
        (["admin", "idv", "document", "t1"], "--out FILE is required"),
        (["device", "activate", "--code", "x"], "--user USER is required"),
        // Required options are declared as such: the parser refuses a command line without them.
        (["device", "register"], "--user USER is required"),
        (["admin", "device", "link"], "--user USER is required"),
        (["admin", "client", "create", "--name", "App"], "--redirect-uri URI is required"),
        (["token", "exchange", "--client-id", "oc_x", "--redirect-uri", "app:/cb"], "--code CODE is required"),
        (["token", "verify", "eyJ"], "--client-id CLIENT is required"),
        (["bench", "token", "--client-id", "oc_x"], "--redirect-uri URI is required"),
        (["bench", "idv", "--frames", "b"], "--enroll DIR is required"),
        (["admin", "keys", "rotate-master"], "--new-master-key-file FILE is required"),
        (["eval", "pairs"], "--pairs FILE is required"),
        (["eval", "liveness"], "--data DIR is required"),
        (["notify", "send", "--user", "alice", "--message", "M", "--action", "A:a:0"], "--subject TEXT is required"),
    ])
    func declaredChecksRunFirst(arguments: [String], message: String) throws {
        let result = try CLI.run(arguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    /// A file that is there but cannot be read is no command-line mistake: exit 1.
    @Test func anUnreadableImageIsARuntimeFailure() throws {
        let result = try CLI.run(["idv", "document-scan", "--front", CLI.temporaryDirectory()])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("--front: cannot read"))
    }

    @Test func anUnreadableMasterKeyFileIsARuntimeFailure() throws {
        let result = try CLI.run(["admin", "keys", "rotate", "--data-dir", CLI.temporaryDirectory(), "--master-key-file", "/nonexistent/master.key"])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("cannot read the master key file /nonexistent/master.key"))
    }

    /// A profile's session belongs to the server it was activated against: a different
    /// `--server` or `CUSTOS_SERVER` is refused, the same one is fine.
    @Test func aProfileIsNotSentToAnotherServer() throws {
        let directory = CLI.temporaryDirectory()
        let profile = #"{"server": "http://127.0.0.1:9", "user_id": "alice", "device_id": "d1"}"#
        try Data(profile.utf8).write(to: URL(fileURLWithPath: directory).appendingPathComponent("profile.json"))
        let flag = try CLI.run(["logout", "--profile", directory, "--server", "http://127.0.0.1:8080"])
        #expect(flag.status == 2)
        #expect(flag.stderr.contains("belongs to http://127.0.0.1:9, not http://127.0.0.1:8080"), "\(flag.stderr)")
        let environment = try CLI.run(["idv", "status", "--profile", directory], environment: ["CUSTOS_SERVER": "https://elsewhere.example"])
        #expect(environment.status == 2 && environment.stderr.contains("its session is sent to no other server"))
        let same = try CLI.run(["logout", "--profile", directory], environment: ["CUSTOS_SERVER": "http://127.0.0.1:9/"])
        #expect(same.status == 0 && same.stdout == "not logged in\n", "\(same.stderr)")
    }
}
