import CustosAPI
import CustosCore
import CustosSDK
import CustosStore
import CustosTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// The attempt counter is exact in both directions when ten proofs arrive at once, on one node
/// and on two: never more wrong proofs judged than the limit, and a right proof answered 153
/// only when the user really is locked (not because others held the attempts at that moment).
/// The same for password registration, whose count closes it for the user.
@Suite struct AttemptConcurrencyTests {
    enum Topology: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case sqlite, postgresql, twoNodes

        static var available: [Topology] { TestEnvironment.postgresURL == nil ? [.sqlite] : allCases }
        var testDescription: String { rawValue }

        /// Servers with a worker for each of the ten requests, and a password hash that takes a
        /// while to judge (32 MiB, two passes), so that the ten are in flight together (with
        /// attempts taken before judging and no wait, five of ten right passwords got 153).
        func servers() throws -> [LiveServer] {
            func server(_ store: SQLStore) throws -> LiveServer {
                try LiveServer(store: store, workers: 12) {
                    $0.identity.passwordRegistration = true
                    $0.identity.passwordRegistrationFailures = 2
                    $0.identity.deviceProofAttempts = 100
                    $0.identity.clientProofAttempts = 1000
                    $0.argon2Iterations = 2
                    $0.argon2MemoryKiB = 32 * 1024
                    // The wait for attempts held by the others, in real time: under make test's
                    // load the ten hashes can take far longer than on a quiet server.
                    $0.identity.attemptWait = 300
                }
            }
            switch self {
            case .sqlite: return [try server(LiveServer.store(.sqlite))]
            case .postgresql: return [try server(LiveServer.store(.postgresql))]
            case .twoNodes:
                let schema = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
                return [try server(LiveServer.store(.postgresql, schema: String(schema))),
                        try server(LiveServer.store(.postgresql, schema: String(schema)))]
            }
        }
    }

    /// A user activated on the first node, with the device's key directory every client shares.
    struct Account {
        let nodes: [LiveServer]
        let userID: String
        let deviceID: String
        let keys: URL
        let session: String

        static func make(_ topology: Topology) async throws -> Account {
            let nodes = try topology.servers()
            let userID = "user-\(UUID().uuidString.prefix(8))"
            let created = try await nodes[0].admin().createUser(userID)
            let keys = FileManager.default.temporaryDirectory.appendingPathComponent("custos-keys-\(UUID().uuidString)")
            let phone = try nodes[0].client(keys: keys)
            let activated = try await phone.activate(userID: userID, activationCode: created.activation.activationCode,
                                                     password: IdentityFlowTests.password, deviceName: "phone")
            return Account(nodes: nodes, userID: userID, deviceID: try #require(activated.deviceID),
                           keys: keys, session: try #require(phone.session.sessionToken))
        }

        func node(_ index: Int) -> LiveServer { nodes[index % nodes.count] }
        func stop() { nodes.forEach { $0.stop() } }

        /// Ten logins with `password` from the bound device, released together across the nodes
        /// (each client knows the key by the first node's address, and sends to its own node).
        func tenLogins(password: String) async throws -> [Int] {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<10 {
                    let client = try nodes[0].client(keys: keys) { $0.exchange = ToPort(port: node(index).port) }
                    group.addTask { try await client.login(userID: userID, deviceID: deviceID, password: password).statusCode.rawValue }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }

        /// Ten password registrations of new devices, each with its own key, released together
        /// across the nodes: `passwords[i]` for the i-th. Their status or error codes, in order.
        func tenRegistrations(passwords: [String]) async throws -> [String] {
            try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for (index, password) in passwords.enumerated() {
                    let newDevice = try node(index).client()
                    group.addTask {
                        do {
                            let result = try await newDevice.registerDevice(userID: userID, password: password, deviceName: "device \(index)")
                            return (index, String(result.statusCode.rawValue))
                        } catch let error as CustosError {
                            return (index, error.code)
                        }
                    }
                }
                return try await group.reduce(into: Array(repeating: "", count: passwords.count)) { $0[$1.0] = $1.1 }
            }
        }

        func lockouts() throws -> Int {
            try nodes[0].store.auditEvents(afterSequence: 0, limit: 500, userID: userID, transactionID: nil)
                .filter { $0.kind == AuditKind.lockout.rawValue }.count
        }
    }

    /// Sends each request to the same host on another port: another node.
    struct ToPort: HTTPExchange {
        let port: Int

        func exchange(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
            var request = request
            guard let url = request.url, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
                throw URLError(.badURL)
            }
            components.port = port
            request.url = components.url
            return try await URLSessionExchange().exchange(request)
        }
    }

    @Test(arguments: Topology.available)
    func tenRightPasswordsAtOnceAllSignIn(topology: Topology) async throws {
        let account = try await Account.make(topology)
        defer { account.stop() }
        let codes = try await account.tenLogins(password: IdentityFlowTests.password)
        #expect(codes == Array(repeating: 100, count: 10), "\(codes)")
        #expect(try account.nodes[0].identity.attemptsLeft(userID: account.userID, factor: .credentials) == 5)
        #expect(try account.lockouts() == 0)
    }

    @Test(arguments: Topology.available)
    func tenWrongPasswordsAtOnceJudgeNoMoreThanTheLimit(topology: Topology) async throws {
        let account = try await Account.make(topology)
        defer { account.stop() }
        let codes = try await account.tenLogins(password: "not the password")
        // Five judged (four 401s, the fifth locks), and the rest find the user locked.
        #expect(codes.sorted() == [153, 153, 153, 153, 153, 153, 401, 401, 401, 401], "\(codes)")
        #expect(try account.lockouts() == 1)
        let user = try #require(try account.nodes[0].store.user(id: account.userID))
        #expect(user.isLocked(at: account.nodes[0].clock.now()))
    }

    /// One wrong guess and nine right passwords at once, with password registration closing at
    /// two: every right one binds its device (none is told "closed" because others held the
    /// count), the guess is 401, and registration is still open.
    @Test(arguments: Topology.available)
    func nineRightPasswordRegistrationsAmongAGuessAllBind(topology: Topology) async throws {
        let account = try await Account.make(topology)
        defer { account.stop() }
        let codes = try await account.tenRegistrations(passwords: ["a guessed password"] + Array(repeating: IdentityFlowTests.password, count: 9))
        #expect(codes == ["401"] + Array(repeating: "100", count: 9), "\(codes)")
        #expect(try await account.nodes[0].admin().devices(account.userID).count == 10)
    }

    /// A level-1 action answered ten times at once with the right password: one answer wins,
    /// the others find it answered (409), and none is told the user is locked.
    @Test(arguments: Topology.available)
    func aLevelOneActionAnsweredTenTimesAtOnceHasOneWinnerAndNo153(topology: Topology) async throws {
        let account = try await Account.make(topology)
        defer { account.stop() }
        let sent = try await account.nodes[0].admin().createNotification(CreateNotificationRequest(
            userID: account.userID, subject: "Payment", message: "Approve 10 EUR?",
            actions: [NotificationAction(label: "Approve", action: "approve", authLevel: .password)]))
        let answers = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<10 {
                let api = RawAPI(base: account.node(index).baseURL)
                group.addTask { [session = account.session] in
                    let (status, data) = try await api.postData("/v1/notifications/\(sent.notificationUUID)/actions",
                                                                UpdateNotificationRequest(action: "approve", password: IdentityFlowTests.password),
                                                                bearer: session)
                    let body = try JSONSerialization.jsonObject(with: data) as? [String: Any]
                    return status == 200 ? "200/\(body?["status_code"] ?? "-")" : String(status)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.filter { $0 == "200/100" }.count == 1, "\(answers)")
        #expect(answers.filter { $0 == "409" }.count == 9, "\(answers)")
        #expect(try account.lockouts() == 0)
        #expect(try account.nodes[0].identity.attemptsLeft(userID: account.userID, factor: .credentials) == 5)
    }
}
