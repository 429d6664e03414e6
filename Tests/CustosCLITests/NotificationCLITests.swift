import CustosAPI
import CustosTestSupport
import Foundation
import Testing

/// Step-up notifications from the command line: the relying party's `notify`, the user's
/// `notifications`, webhooks across a killed server, and CIBA checked by an outside client.
@Suite(.serialized) struct NotificationCLITests {
    typealias Served = IdentityCLITests.Served
    static let password = "a good long password"

    func activatedProfile(_ served: Served, _ userID: String) throws -> String {
        try ClientCommandsCLITests().activatedProfile(served, userID)
    }

    func send(_ served: Served, _ arguments: [String]) throws -> CreatedNotification {
        let sent = try CLI.run(["notify", "send"] + arguments + ["--json", "--server", served.server], environment: ["CUSTOS_API_KEY": served.rpKey])
        #expect(sent.status == 0, "\(sent.stderr)")
        return try WireJSON.decoder().decode(CreatedNotification.self, from: Data(sent.stdout.utf8))
    }

    func status(_ served: Served, _ uuid: String) throws -> NotificationResult {
        let shown = try CLI.run(["notify", "status", uuid, "--json", "--server", served.server], environment: ["CUSTOS_API_KEY": served.rpKey])
        #expect(shown.status == 0, "\(shown.stderr)")
        return try WireJSON.decoder().decode(NotificationResult.self, from: Data(shown.stdout.utf8))
    }

    /// SQLite, and PostgreSQL where the environment has one (its public schema: the only CLI
    /// test that serves on PostgreSQL).
    static var databases: [String?] { [nil] + (TestEnvironment.postgresURL.map { [$0] } ?? []) }

    @Test(arguments: databases)
    func sendListActAndStatusAtEachLevel(database: String?) throws {
        let served = try Served(extra: ["--idv=false"], database: database)
        defer { served.stop() }
        let profile = try activatedProfile(served, "nora")
        let payment = ["--user", "nora", "--subject", "Payment to ACME", "--message", "Pay 120.50 EUR to ACME Ltd?",
                       "--amount", "120.50", "--currency", "EUR", "--payee", "ACME Ltd"]

        // Level 1: a wrong password is exit 4 with the attempts left; the right one answers.
        let first = try send(served, payment + ["--action", "Approve:approve:1", "--action", "Deny:deny:0"])
        let listed = try CLI.run(["notifications", "list", "--profile", profile])
        #expect(listed.status == 0 && listed.stdout.contains(first.notificationUUID), "\(listed.stderr)")
        #expect(listed.stdout.contains("payment: 120.50 EUR to ACME Ltd") && listed.stdout.contains("approve (Approve, level 1)"))
        let wrong = try CLI.run(["notifications", "act", first.notificationUUID, "approve", "--password-stdin", "--profile", profile],
                                stdin: "not the password\n")
        #expect(wrong.status == 4 && wrong.stdout.contains("401") && wrong.stdout.contains("4 attempts left"), "\(wrong.stdout) \(wrong.stderr)")
        let right = try CLI.run(["notifications", "act", first.notificationUUID, "approve", "--password-stdin", "--profile", profile],
                                stdin: Self.password + "\n")
        #expect(right.status == 0 && right.stdout.hasPrefix("100: "), "\(right.stdout) \(right.stderr)")
        let result = try status(served, first.notificationUUID)
        #expect(result.status == .answered && result.action == "approve" && result.authLevel == 1 && result.signedResult != nil)
        let text = try CLI.run(["notify", "status", first.notificationUUID, "--server", served.server], environment: ["CUSTOS_API_KEY": served.rpKey])
        #expect(text.stdout.contains("answered  action=approve  auth_level=1  amr=pwd"), "\(text.stdout)")

        // Level 3: the profile's device key signs what was listed.
        let second = try send(served, payment + ["--action", "Approve:approve:3"])
        let signed = try CLI.run(["notifications", "act", second.notificationUUID, "approve", "--profile", profile])
        #expect(signed.status == 0, "\(signed.stdout) \(signed.stderr)")
        #expect(try status(served, second.notificationUUID).amr == ["swk"])

        // Number matching: a wrong pick closes it.
        let third = try send(served, payment + ["--action", "Approve:approve:0", "--number-matching"])
        let number = try #require(third.number)
        let wrongNumber = try CLI.run(["notifications", "act", third.notificationUUID, "approve", "--number", String(number == 99 ? 10 : number + 1),
                                       "--profile", profile])
        #expect(wrongNumber.status == 1 && wrongNumber.stderr.contains("number_mismatch"), "\(wrongNumber.stderr)")
        #expect(try status(served, third.notificationUUID).status == .failed)

        // Mistakes on the command line are usage errors.
        for (arguments, message) in [
            (["notify", "send", "--user", "nora", "--subject", "S", "--message", "M", "--action", "approve"], "write LABEL:ACTION:LEVEL"),
            (["notify", "send", "--subject", "S", "--message", "M", "--action", "A:a:0"], "--user USER is required"),
            (["notifications", "act", first.notificationUUID, "approve", "--number", "7", "--profile", profile], "--number must be"),
        ] {
            let result = try CLI.run(arguments + ["--server", served.server], environment: ["CUSTOS_API_KEY": served.rpKey])
            #expect(result.status == 2 && result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        let gone = try CLI.run(["notifications", "act", first.notificationUUID, "approve", "--profile", profile])
        #expect(gone.status == 1 && gone.stderr.contains("no pending notification"), "\(gone.stderr)")
    }

    @Test func aWebhookInFlightWhenTheServerIsKilledIsDeliveredAfterTheRestart() throws {
        // The first request hangs until the server is gone; every later one is answered at once.
        let receiver = try WebhookReceiver(delay: { $0 == 1 ? 10 : 0 })
        defer { receiver.stop() }
        let webhookOptions = ["--webhook-timeout", "2", "--webhook-backoff-ms", "100"]
        var served = try Served(extra: ["--idv=false"] + webhookOptions)
        let profile = try activatedProfile(served, "otto")
        let created = try send(served, ["--user", "otto", "--subject", "Sign-in", "--message", "Is it you?", "--action", "Yes:yes:0",
                                        "--callback", receiver.url])
        #expect(try CLI.run(["notifications", "act", created.notificationUUID, "yes", "--profile", profile]).status == 0)
        #expect(waitUntil { receiver.requests.count == 1 })
        _ = served.serve.terminate(signal: SIGKILL)

        // The same data directory, a new process: the lease of the killed one runs out, and the
        // delivery goes again with the same idempotency id.
        served = try Served(restarting: served, extra: ["--idv=false"] + webhookOptions)
        defer { served.stop() }
        #expect(waitUntil(timeout: 30) { receiver.requests.count >= 2 })
        let requests = receiver.requests
        #expect(Set(requests.map(\.deliveryID)).count == 1 && receiver.processed.count == 1)
        let result = try status(served, created.notificationUUID)
        #expect(result.delivery?.state == "delivered" && result.delivery?.deliveryID == requests[0].deliveryID, "\(String(describing: result.delivery))")
    }

    @Test(.enabled(if: OutsideClients.shouldRun, Comment(rawValue: OutsideClients.missingMessage)))
    func cibaPollModeWithAnOutsideClientAndTheUserApprovingOnTheCommandLine() throws {
        let port = try freePort()
        let issuer = "http://127.0.0.1:\(port)"
        let served = try Served(extra: ["--idv=false", "--port", String(port), "--issuer", issuer, "--ciba-interval", "1"])
        defer { served.stop() }
        let profile = try activatedProfile(served, "cleo")
        let key = try CLI.run(["admin", "apikey", "create", "--scope", "rp", "--label", "shop", "--json", "--data-dir", served.dataDir])
        let client = try WireJSON.decoder().decode(APIKeyInfo.self, from: Data(key.stdout.utf8))
        let ready = CLI.temporaryDirectory() + "/auth_req_id"

        let script = SharedData.packageRoot.appendingPathComponent("Tests/Clients/ciba_client.py").path
        let outside = try ChildProcess(executable: OutsideClients.python.path,
                                       arguments: [script, issuer, client.id, try #require(client.key), "cleo", "urn:custos:acr:1", ready],
                                       environment: ProcessInfo.processInfo.environment)
        #expect(waitUntil(timeout: 30) { FileManager.default.fileExists(atPath: ready) })

        // The user sees the request (with its binding message and payment) and approves with the password.
        let listed = try CLI.run(["notifications", "list", "--json", "--profile", profile])
        let pending = try WireJSON.decoder().decode(NotificationList.self, from: Data(listed.stdout.utf8)).notifications
        let request = try #require(pending.first)
        #expect(request.subject == "Sign-in: W4K2" && request.authorizationDetails?.payee == "Corner Shop")
        #expect(request.actions.map(\.authLevel) == [1, 0])
        let approved = try CLI.run(["notifications", "act", request.notificationUUID, "approve", "--password-stdin", "--profile", profile],
                                   stdin: Self.password + "\n")
        #expect(approved.status == 0, "\(approved.stdout) \(approved.stderr)")

        let output = outside.waitForOutput()
        let printed = String(decoding: output.stdout, as: UTF8.self) + String(decoding: output.stderr, as: UTF8.self)
        #expect(output.status == 0, "\(printed)")
        #expect(printed.contains(#""acr": "urn:custos:acr:1""#) && printed.contains(#""amr": ["pwd"]"#), "\(printed)")
        #expect(printed.contains(#""polls_seen": ["authorization_pending", "slow_down"]"#), "\(printed)")
    }

    func waitUntil(timeout: TimeInterval = 20, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return condition()
    }

    /// A port nothing listens on now.
    func freePort() throws -> Int {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
