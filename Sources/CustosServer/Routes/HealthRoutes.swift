import CustosAPI
import CustosCore
import CustosHTTP
import Foundation

/// `GET /healthz` (alive), `GET /readyz` (database answers), `GET /metrics` (Prometheus).
enum HealthRoutes {
    static func register(on router: inout Router, database: any DatabaseHealth, metrics: HTTPMetrics) {
        // Constant answer, encoded once: keeps JSON encoding off the hottest path.
        let healthBody = (try? WireJSON.encoder().encode(HealthStatus(version: CustosVersion.current))) ?? Data()
        router.get("/healthz", inline: true) { _ in .json(raw: healthBody) }

        let readyBody = (try? WireJSON.encoder().encode(ReadinessStatus(status: "ready", database: "ok"))) ?? Data()
        // An unreachable database answers 503 database_unavailable through ErrorMapping. The
        // three run inline: a saturated worker pool must not hide a live server from probes.
        router.get("/readyz", inline: true) { _ in
            try database.ping()
            return .json(raw: readyBody)
        }

        router.get("/metrics", inline: true) { _ in
            .text(metrics.render(), contentType: "text/plain; version=0.0.4; charset=utf-8")
        }
    }
}
