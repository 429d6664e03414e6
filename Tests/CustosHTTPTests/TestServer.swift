@testable import CustosHTTP
import Foundation

/// A server on a free loopback port with a router made for the test; stopped by `stop()`.
struct TestServer {
    let server: HTTPServer
    let log: MemoryLogSink
    var port: Int { server.port ?? 0 }

    init(configuration: HTTPServerConfiguration = HTTPServerConfiguration(port: 0, threads: 2),
         errorMapper: @escaping @Sendable (any Error) -> HTTPError? = { _ in nil },
         routes: (inout Router) -> Void) throws {
        var router = Router()
        routes(&router)
        log = MemoryLogSink()
        var configuration = configuration
        configuration.port = 0
        configuration.host = "127.0.0.1"
        server = HTTPServer(configuration: configuration, router: router, logger: Logger(sink: log, level: .debug),
                            errorMapper: errorMapper)
        try server.start()
    }

    func client() throws -> RawHTTPClient { try RawHTTPClient(port: port) }

    func stop() { server.stop() }
}

struct Greeting: Codable, Equatable {
    var name: String
    var count: Int
}
