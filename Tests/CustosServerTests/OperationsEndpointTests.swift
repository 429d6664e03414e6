import CustosAPI
import CustosSDK
import CustosTestSupport
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `/healthz`, `/readyz` and `/metrics` on the real application, through the SDK.
@Suite struct OperationsEndpointTests {
    @Test func healthAndReadinessOnSQLite() async throws {
        let live = try LiveServer.sqlite()
        defer { live.stop() }
        let client = try live.client()
        let health = try await client.health()
        #expect(health == HealthStatus(status: "ok", version: CustosVersion.current))
        let ready = try await client.readiness()
        #expect(ready == ReadinessStatus(status: "ready", database: "ok"))
    }

    @Test func metricsAreExposedInPrometheusFormat() async throws {
        let live = try LiveServer.sqlite()
        defer { live.stop() }
        _ = try await live.client().health()
        let (data, response) = try await URLSession.shared.data(from: live.baseURL.appendingPathComponent("metrics"))
        let text = String(decoding: data, as: UTF8.self)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type")?.hasPrefix("text/plain") == true)
        #expect(text.contains(#"custos_http_requests_total{method="GET",route="/healthz",status="200"} 1"#))
        #expect(text.contains("# TYPE custos_http_request_duration_seconds histogram"))
    }

    @Test func readinessIs503WhenTheStoreIsClosed() async throws {
        let live = try LiveServer.sqlite()
        defer { live.server.stop() }
        live.store.close()
        await #expect(throws: CustosError.self) { try await live.client().readiness() }
        do {
            _ = try await live.client().readiness()
        } catch let error as CustosError {
            #expect(error.code == "database_unavailable")
            #expect(error.httpStatus == 503)
        }
        // Alive all the same.
        _ = try await live.client().health()
    }

    @Test func unreachableServerIsATransportError() async throws {
        let client = try CustosClient(configuration: .init(serverURL: URL(string: "http://127.0.0.1:1")!, timeout: 5))
        await #expect(throws: CustosError.transportFailed) { try await client.health() }
    }
}

/// Stops the shared PostgreSQL server: runs only in the Makefile's separate outage pass.
@Suite(.serialized, .enabled(if: TestEnvironment.outageAllowed && TestEnvironment.postgresURL != nil,
                             "PostgreSQL outage tests run in their own pass (make test)"))
struct PostgresOutageReadinessTests {
    @Test func readinessFollowsThePostgresServer() async throws {
        let live = try LiveServer.postgres(schema: "readiness_\(UInt32.random(in: 0...UInt32.max))")
        defer { live.stop() }
        let client = try live.client()
        #expect(try await client.readiness().status == "ready")

        try TestEnvironment.controlPostgres("stop")
        do {
            _ = try await client.readiness()
            Issue.record("readiness should fail while PostgreSQL is down")
        } catch let error as CustosError {
            #expect(error.code == "database_unavailable")
            #expect(error.httpStatus == 503)
        }
        #expect(try await client.health().status == "ok")

        try TestEnvironment.controlPostgres("start")
        var recovered = false
        for _ in 0..<50 where !recovered {
            recovered = (try? await client.readiness().status) == "ready"
            if !recovered { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(recovered)
    }
}
