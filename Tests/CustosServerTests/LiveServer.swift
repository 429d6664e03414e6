import CustosHTTP
import CustosSDK
import CustosServer
import CustosStore
import CustosTestSupport
import Foundation

/// The real application on a free loopback port over a real store, driven through the SDK.
struct LiveServer {
    let server: HTTPServer
    let store: SQLStore
    let log = MemoryLogSink()

    var port: Int { server.port ?? 0 }
    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// SQLite in a fresh temporary directory.
    static func sqlite() throws -> LiveServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("custos-live-\(UUID().uuidString)").path
        return try LiveServer(store: SQLStore.open(databaseURL: nil, dataDirectory: directory))
    }

    /// PostgreSQL from `CUSTOS_TEST_DATABASE_URL`, in a schema of its own.
    static func postgres(schema: String) throws -> LiveServer {
        let url = TestEnvironment.postgresURL ?? ""
        return try LiveServer(store: SQLStore.openPostgres(url: url, options: PostgresOptions(connectTimeoutSeconds: 2, schema: schema)))
    }

    init(store: SQLStore) throws {
        self.store = store
        server = CustosApplication.makeServer(ApplicationDependencies(store: store),
                                              configuration: HTTPServerConfiguration(port: 0, threads: 2),
                                              logger: Logger(sink: log, level: .info))
        try server.start()
    }

    func client() throws -> CustosClient {
        try CustosClient(configuration: .init(serverURL: baseURL, timeout: 10))
    }

    func stop() {
        server.stop()
        store.close()
    }
}
