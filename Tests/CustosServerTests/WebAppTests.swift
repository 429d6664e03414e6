import CustosAPI
@testable import CustosHTTP
@testable import CustosServer
@testable import CustosWebApp
import Foundation
import Testing

/// The web app's files as the router serves them: types, ETags, the pages' security headers,
/// and nothing but the app's own files (the browser tests click through the pages themselves).
struct WebAppTests {
    /// A web root with an index, a script, the sign-in template and files that must never be served.
    static func webRoot() throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("custos-web-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let files = ["index.html": "<!doctype html><title>app</title>", "app.js": "export const x = 1;",
                     "authorize.html": #"<body data-client-name="{{client_name}}" data-issuer="{{issuer}}">"#,
                     "notes.txt": "not served", ".hidden.js": "not served", "run.sh": "not served"]
        for (name, text) in files { try Data(text.utf8).write(to: root.appendingPathComponent(name)) }
        return root
    }

    func router(_ web: WebApp?) throws -> (Router, LiveServer) {
        let live = try LiveServer.sqlite()
        let router = CustosApplication.makeRouter(ApplicationDependencies(database: live.store, identity: live.identity, apiKeys: live.apiKeys,
                                                                          oidc: live.oidc, webApp: web), metrics: HTTPMetrics())
        return (router, live)
    }

    func get(_ router: Router, _ path: String, headers: [(String, String)] = []) throws -> Response {
        guard case .found(let route, let parameters) = router.match(.get, path) else { return Response(status: 404) }
        var request = Request(method: .get, path: path, headers: HTTPHeaders(headers))
        request.pathParameters = parameters
        do { return try route.handler(request) } catch { return .error(ErrorMapping.httpError(for: error) ?? HTTPError(status: 500, code: "internal_error", message: "")) }
    }

    @Test func servesTheAppsFilesWithTheirTypeTheirETagAndTheSecurityHeaders() throws {
        let (router, live) = try router(try WebApp(root: try Self.webRoot()))
        defer { live.stop() }
        let index = try get(router, "/app/")
        #expect(index.status == 200 && index.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(index.headers["Content-Security-Policy"]?.contains("frame-ancestors 'none'") == true)
        #expect(index.headers["Content-Security-Policy"]?.contains("script-src 'self';") == true)
        #expect(index.headers["X-Frame-Options"] == "DENY" && index.headers["X-Content-Type-Options"] == "nosniff")
        #expect(index.headers["Cache-Control"] == "no-cache" && index.headers["Set-Cookie"] == nil)
        let script = try get(router, "/app/app.js")
        #expect(script.status == 200 && script.headers["Content-Type"] == "text/javascript; charset=utf-8")
        let etag = try #require(script.headers["ETag"])
        let again = try get(router, "/app/app.js", headers: [("If-None-Match", etag)])
        #expect(again.status == 304 && again.body.isEmpty && again.headers["ETag"] == etag)
        let root = try get(router, "/")
        #expect(root.status == 302 && root.headers["Location"] == "/app/")
    }

    @Test func servesNothingButTheAppsOwnFiles() throws {
        let (router, live) = try router(try WebApp(root: try Self.webRoot()))
        defer { live.stop() }
        // The sign-in template only through the authorization endpoint, which checks the request first.
        for path in ["/app/authorize.html", "/app/notes.txt", "/app/.hidden.js", "/app/run.sh", "/app/missing.js", "/app/..", "/app/%2e%2e"] {
            #expect(try get(router, path).status == 404, "\(path)")
        }
        #expect(WebApp.servable("style.css") && WebApp.servable("admin-view_2.js"))
        #expect(!WebApp.servable(".js") && !WebApp.servable("a.b.js") && !WebApp.servable("../x.js") && !WebApp.servable("x.sh"))
    }

    @Test func withoutTheAppTheRootIsNotFoundAndTheServerStillServesTheAPI() throws {
        let (router, live) = try router(nil)
        defer { live.stop() }
        #expect(try get(router, "/").status == 404)
        #expect(try get(router, "/app/").status == 404)
        #expect(try get(router, "/healthz").status == 200)
    }

    @Test func aDirectoryWithoutAnIndexIsRefusedAtStart() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("custos-web-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        #expect(throws: WebApp.LoadError.self) { try WebApp(root: root) }
        #expect(throws: WebApp.LoadError.self) { try WebApp(root: root.appendingPathComponent("missing")) }
    }

    @Test func theBuildCopiedTheAppBesideTheBinary() throws {
        let bundled = try #require(WebApp.bundled(), "the resources bundle is not beside the test binary")
        let web = try WebApp(root: bundled)
        for name in ["index.html", "app.js", "core.js", "device.js", "selfie.js", "biometric.js", "notifications.js", "passkeys.js",
                     "admin.js", "authorize.js", "authorize.html", "style.css", "favicon.svg", "documentscan.js", "contract.js"] {
            #expect(web.assets[name] != nil, "\(name) is not in the built web app")
        }
    }

    /// contract.js is written from the endpoint table and the contract's codes: every endpoint by
    /// its name, the codes by theirs.
    @Test func theContractIsWrittenFromTheEndpointTable() throws {
        let script = WebContract.javascript()
        #expect(Set(Endpoints.named.map(\.name)).count == Endpoints.named.count, "a name is in the table twice")
        for (name, endpoint) in Endpoints.named {
            #expect(script.contains(#""\#(name)":{"method":"\#(endpoint.method.rawValue)","path":"\#(endpoint.path)"}"#), "\(name) missing")
        }
        #expect(script.contains(#""attemptsExhausted":153"#) && script.contains(#""stepUpBiometric":9"#) && script.contains(#""3":"device signature""#))
        let web = try WebApp(root: try Self.webRoot())
        #expect(web.assets["contract.js"].map { String(decoding: $0.body, as: UTF8.self) } == script)
    }

    /// The app's scripts call the API through contract.js only: no path of the API typed again,
    /// and every endpoint they name is in the table.
    @Test func theAppsScriptsTypeNoPathOfTheirOwn() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/CustosWebApp/Web")
        let names = Set(Endpoints.named.map(\.name))
        let scripts = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".js") }
        #expect(scripts.count >= 10)
        for script in scripts {
            let text = try String(contentsOf: directory.appendingPathComponent(script), encoding: .utf8)
            for typed in ["\"/v1/", "`/v1/", "'/v1/", "\"/oauth2/", "`/oauth2/"] {
                #expect(!text.contains(typed), "\(script) types an API path (\(typed)…): use E.<endpoint> from contract.js")
            }
            for match in text.matches(of: /\bE\.([A-Za-z]+)/) {
                #expect(names.contains(String(match.1)), "\(script) names E.\(match.1), which the endpoint table does not have")
            }
        }
    }
}
