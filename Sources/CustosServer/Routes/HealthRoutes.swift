import CustosAPI
import CustosCore
import CustosHTTP
import Foundation

/// `GET /healthz` (alive), `GET /readyz` (database answers), `GET /metrics` (Prometheus).
enum HealthRoutes {
    static func register(on routes: inout EndpointRouter, _ groups: AccessGroups, database: any DatabaseHealth, metrics: HTTPMetrics) {
        // Constant answers, encoded once: keeps JSON encoding off the hottest path. The three run
        // inline: a saturated worker pool must not hide a live server from probes.
        let healthBody = (try? WireJSON.encoder().encode(HealthStatus(version: CustosVersion.current))) ?? Data()
        routes.respond(Endpoints.health, groups.anyone, inline: true) { _, _ in .json(raw: healthBody) }

        // An unreachable database answers 503 database_unavailable through ErrorMapping.
        let readyBody = (try? WireJSON.encoder().encode(ReadinessStatus(status: "ready", database: "ok"))) ?? Data()
        routes.respond(Endpoints.readiness, groups.anyone, inline: true) { _, _ in
            try database.ping()
            return .json(raw: readyBody)
        }

        routes.respond(Endpoints.metrics, groups.anyone, inline: true) { _, _ in
            .text(metrics.render(), contentType: "text/plain; version=0.0.4; charset=utf-8")
        }
    }
}
