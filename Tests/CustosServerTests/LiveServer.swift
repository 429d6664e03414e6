import CustosConfiguration
import CustosCore
import CustosCrypto
import CustosCryptoServices
import CustosDelivery
import CustosHTTP
import CustosRuntime
import CustosSDK
import CustosServer
import CustosStore
import CustosTestSupport
import Foundation
import Testing

/// The real application on a free loopback port over a real store, driven through the SDK: in
/// process (`HTTPServer.respond`, no socket) unless a suite asks for `.socket`, the transport a
/// deployed app uses. The port listens either way, for tests that send raw requests.
struct LiveServer {
    let server: HTTPServer
    let store: SQLStore
    let log = MemoryLogSink()

    var port: Int { server.port ?? 0 }
    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// How the SDK's clients reach the server.
    enum Transport: Sendable {
        /// `HTTPServer.respond`: the router, limits and worker pool without a connection.
        case inProcess
        /// URLSession over a loopback connection to libmicrohttpd.
        case socket
    }
    /// What this server's clients go through (`transport`).
    let exchange: any HTTPExchange

    /// SQLite in a fresh temporary directory.
    static func sqlite(policy: IdentityPolicy = IdentityPolicy()) throws -> LiveServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("custos-live-\(UUID().uuidString)").path
        return try LiveServer(store: SQLStore.open(databaseURL: nil, dataDirectory: directory), policy: policy)
    }

    /// PostgreSQL from `CUSTOS_TEST_DATABASE_URL`, in a schema of its own.
    static func postgres(schema: String = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16),
                         policy: IdentityPolicy = IdentityPolicy()) throws -> LiveServer {
        let url = TestEnvironment.postgresURL ?? ""
        return try LiveServer(store: SQLStore.openPostgres(url: url, options: PostgresOptions(connectTimeoutSeconds: 2, schema: String(schema))),
                              policy: policy)
    }

    /// Two nodes on one PostgreSQL schema (stop both).
    static func postgresNodes() throws -> (LiveServer, LiveServer) {
        let schema = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        return (try postgres(schema: String(schema)), try postgres(schema: String(schema)))
    }

    static func make(_ kind: StoreKind, policy: IdentityPolicy = IdentityPolicy()) throws -> LiveServer {
        switch kind {
        case .sqlite: try sqlite(policy: policy)
        case .postgresql: try postgres(policy: policy)
        }
    }

    /// A fresh store of `kind` (for servers built with `init(store:…)`).
    static func store(_ kind: StoreKind, schema: String = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16))
        throws -> SQLStore {
        switch kind {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("custos-live-\(UUID().uuidString)").path
            return try SQLStore.open(databaseURL: nil, dataDirectory: directory)
        case .postgresql:
            return try SQLStore.openPostgres(url: TestEnvironment.postgresURL ?? "", options: PostgresOptions(connectTimeoutSeconds: 2, schema: schema))
        }
    }

    let identity: IdentityService
    let apiKeys: APIKeyService
    /// The secret of the relying party's `rp` key (see `admin()`).
    let relyingPartySecret: String
    let relyingPartyKey: APIKey
    let clock: TestClock
    let idv: IDVService?

    let signer: SigningKeyRing
    let notifications: NotificationService
    let webhookSigner: any WebhookSigner
    let oidc: OIDCService
    /// Delivers webhooks when the server was started with `webhooks: true`.
    let dispatcher: WebhookDispatcher?
    /// What signed IDV results say they come from and are for.
    static let verdictSigning = VerdictSigning(issuer: "https://custos.test", audience: "bank-backend")

    /// With `idv`, server biometrics run on the shared face engine (see `FaceFixture`), or on `faces`. Tests
    /// read the app's answer with its evidence (`resultDetailToApp`) unless `resultDetail` is false.
    /// The wiring is the executable's, with a cheap Argon2id cost and a clock the test moves.
    init(store: SQLStore, policy: IdentityPolicy = IdentityPolicy(), idv idvPolicy: IDVPolicy? = nil,
         masterKey: MasterKey = LiveServer.masterKey, resultDetail: Bool = true, auditStore: (any AuditStore)? = nil,
         rateLimiter: RateLimiter? = nil, webhooks: Bool = false, workers: Int? = nil, faces: (any FaceAnalyzer)? = nil,
         transport: Transport = .inProcess, configure: (inout ServerConfiguration) -> Void = { _ in }) throws {
        self.store = store
        var configuration = ServerConfiguration()
        configuration.webhooks.allowsLoopbackHTTP = true
        configuration.identity = policy
        configuration.argon2Iterations = Argon2id.Cost.testing.iterations
        configuration.argon2MemoryKiB = Argon2id.Cost.testing.memoryKiB
        configuration.idvEnabled = idvPolicy != nil
        if var idvPolicy {
            idvPolicy.resultDetailToApp = resultDetail
            configuration.idv = idvPolicy
        }
        configuration.issuer = Self.verdictSigning.issuer
        configuration.idvAudience = Self.verdictSigning.audience
        // Real time runs on while a test waits for a thread behind the other suites (minutes under
        // make test on two cores): sign-in challenges and codes outlive that wait. Tests of their
        // expiry move the clock, or run a server with short lifetimes. Login nonces too.
        configuration.oidc.challengeLifetime = 900
        configuration.oidc.codeLifetime = 900
        configuration.identity.loginNonceLifetime = 900
        configure(&configuration)
        clock = TestClock()
        let services = try ApplicationFactory.services(
            configuration, store: store, masterKeys: MasterKeys(primary: masterKey),
            parts: RuntimeParts(clock: clock, faces: idvPolicy == nil ? nil : try faces ?? FaceFixture.engine(), auditStore: auditStore))
        (identity, apiKeys, idv, signer) = (services.identity, services.apiKeys, services.idv, services.signer)
        (relyingPartyKey, relyingPartySecret) = try services.apiKeys.create(scope: .rp, label: "relying party", actor: "test")
        (notifications, webhookSigner, oidc) = (services.notifications, services.webhookSigner, services.oidc)
        dispatcher = webhooks ? services.startWebhooks(store: store, configuration: configuration, logger: Logger(sink: log, level: .info)) : nil
        var http = HTTPServerConfiguration(port: 0, threads: 2)
        if let workers { http.workers = workers }
        server = CustosApplication.makeServer(services.dependencies(database: store, rateLimiter: rateLimiter),
                                              configuration: http, logger: Logger(sink: log, level: .info))
        try server.start()
        exchange = transport == .socket ? URLSessionExchange() : InProcessExchange(server: server)
    }

    /// One master key for every test server (templates sealed by one server open on another).
    static let masterKey = MasterKey.generate()

    static func audit(_ store: any AuditStore, clock: any Clock = SystemClock()) -> AuditTrail {
        ApplicationFactory.auditTrail(store: store, masterKeys: MasterKeys(primary: LiveServer.masterKey), clock: clock)
    }

    /// An app's client with its own device key directory, patient as the tests must be under
    /// make test's load (`TestEnvironment.requestTimeout`).
    func client(keys: URL? = nil, configure: (inout CustosClient.Configuration) -> Void = { _ in }) throws -> CustosClient {
        let directory = keys ?? FileManager.default.temporaryDirectory.appendingPathComponent("custos-keys-\(UUID().uuidString)")
        var configuration = CustosClient.Configuration(serverURL: baseURL, timeout: TestEnvironment.requestTimeout,
                                                       keyStore: FileDeviceKeyStore(directory: directory), exchange: exchange)
        configure(&configuration)
        return try CustosClient(configuration: configuration)
    }

    /// The relying party's client (one `rp` key per server: the users it creates are its own,
    /// and so are their verifications), or an administrator's with a fresh key.
    func admin(scope: APIKey.Scope = .rp) throws -> CustosAdminClient {
        let secret = scope == .rp ? relyingPartySecret : try apiKeys.create(scope: scope, label: "test", actor: "test").1
        return try CustosAdminClient(serverURL: baseURL, apiKey: secret, timeout: TestEnvironment.requestTimeout, exchange: exchange)
    }

    /// This server's relying party (its `rp` key) calling `node`, another node on the same store.
    func admin(at node: LiveServer) throws -> CustosAdminClient {
        try CustosAdminClient(serverURL: node.baseURL, apiKey: relyingPartySecret, timeout: TestEnvironment.requestTimeout, exchange: node.exchange)
    }

    /// Another relying party's client, with a fresh `rp` key of its own.
    func otherRelyingParty() throws -> CustosAdminClient {
        try CustosAdminClient(serverURL: baseURL, apiKey: try apiKeys.create(scope: .rp, label: "other", actor: "test").1,
                              timeout: TestEnvironment.requestTimeout, exchange: exchange)
    }

    func stop() {
        dispatcher?.stop()
        server.stop()
        store.close()
    }
}

/// The databases end-to-end tests run against; PostgreSQL only where the environment has one.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgresql

    static var available: [StoreKind] {
        TestEnvironment.postgresURL == nil ? [.sqlite] : allCases
    }

    var testDescription: String { rawValue }
}

/// A clock tests move forward (password expiry, lockout periods, session timeouts).
final class TestClock: Clock, @unchecked Sendable {
    private let lock = NSLock()
    private var offsetSeconds: TimeInterval = 0

    func now() -> Date { lock.withLock { Date().addingTimeInterval(offsetSeconds) } }

    func advance(by seconds: TimeInterval) { lock.withLock { offsetSeconds += seconds } }

    /// How far ahead of the real clock it runs.
    var offset: TimeInterval { lock.withLock { offsetSeconds } }
}
