import CustosAPI
import CustosHTTP
import CustosWebApp

/// The web app: `/` sends the browser to `/app/`, which serves the app's files from memory.
enum WebRoutes {
    static func register(on routes: inout EndpointRouter, _ groups: AccessGroups, web: WebApp?) {
        @Sendable func app() throws -> WebApp {
            guard let web else { throw HTTPError(status: 404, code: "not_found", message: "This server serves no web app (see --web-root).") }
            return web
        }
        routes.respond(Endpoints.webRoot, groups.anyone, inline: true) { _, _ in
            _ = try app()
            var response = Response(status: 302)
            response.headers.set("Location", "/app/")
            return response
        }
        @Sendable func file(_ name: String, _ request: Request) throws -> Response {
            guard let response = try app().response(name, request: request) else {
                throw HTTPError(status: 404, code: "not_found", message: "No such file in the web app.")
            }
            return response
        }
        routes.respond(Endpoints.webApp, groups.anyone, inline: true) { context, _ in try file("index.html", context.request) }
        routes.respond(Endpoints.webAsset, groups.anyone, inline: true) { context, _ in
            try file(try context.parameter("file"), context.request)
        }
    }
}
