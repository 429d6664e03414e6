@testable import CustosHTTP
import Testing

@Suite struct RouterTests {
    private func router() -> Router {
        var router = Router()
        router.get("/healthz") { _ in Response(status: 200) }
        router.get("/v1/users/{id}") { _ in Response(status: 200) }
        router.delete("/v1/users/{id}") { _ in Response(status: 204) }
        router.post("/v1/users/{id}/devices/{device}") { _ in Response(status: 201) }
        return router
    }

    @Test func staticRouteMatches() {
        guard case .found(let route, let parameters) = router().match(.get, "/healthz") else {
            Issue.record("no match"); return
        }
        #expect(route.pattern == "/healthz")
        #expect(route.index == 0)
        #expect(parameters.isEmpty)
    }

    @Test func trailingSlashIsTheSameRoute() {
        guard case .found = router().match(.get, "/healthz/") else { Issue.record("no match"); return }
    }

    @Test func parametersAreBound() {
        guard case .found(let route, let parameters) = router().match(.post, "/v1/users/alice/devices/d-1") else {
            Issue.record("no match"); return
        }
        #expect(route.pattern == "/v1/users/{id}/devices/{device}")
        #expect(route.index == 3)
        #expect(parameters == ["id": "alice", "device": "d-1"])
    }

    @Test func wrongMethodListsAllowedMethods() {
        guard case .methodNotAllowed(let allowed) = router().match(.put, "/v1/users/alice") else {
            Issue.record("expected 405"); return
        }
        #expect(allowed == [.delete, .get, .head])
        guard case .methodNotAllowed(let staticAllowed) = router().match(.post, "/healthz") else {
            Issue.record("expected 405"); return
        }
        #expect(staticAllowed == [.get, .head])
    }

    @Test func headIsServedByGet() {
        guard case .found = router().match(.head, "/v1/users/bob") else { Issue.record("no match"); return }
    }

    @Test(arguments: ["/nope", "/v1/users", "/v1/users/alice/extra", "/v1/users/a/devices"])
    func unknownPathsAreNotFound(path: String) {
        guard case .notFound = router().match(.get, path) else { Issue.record("expected 404 for \(path)"); return }
    }
}
