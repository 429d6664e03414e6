import CustosCore
import CustosHTTP

/// The live parts the HTTP application needs, passed in by whoever wires the process.
public struct ApplicationDependencies: Sendable {
    public var store: any Store
    public var clock: any Clock

    public init(store: any Store, clock: any Clock = SystemClock()) {
        self.store = store
        self.clock = clock
    }
}

/// Builds the router of every Custos endpoint and the HTTP server that serves it.
public enum CustosApplication {
    public static func makeRouter(_ dependencies: ApplicationDependencies, metrics: HTTPMetrics) -> Router {
        var router = Router()
        HealthRoutes.register(on: &router, database: dependencies.store, metrics: metrics)
        return router
    }

    public static func makeServer(_ dependencies: ApplicationDependencies, configuration: HTTPServerConfiguration,
                                  logger: Logger) -> HTTPServer {
        let metrics = HTTPMetrics()
        return HTTPServer(configuration: configuration, router: makeRouter(dependencies, metrics: metrics),
                          logger: logger, metrics: metrics, errorMapper: ErrorMapping.httpError(for:))
    }
}
