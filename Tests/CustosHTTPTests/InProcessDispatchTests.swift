@testable import CustosHTTP
import Foundation
import Testing

/// `HTTPServer.respond` answers as a connection is answered: the same decoded path and query,
/// limits, upload admission, routing, styling and headers, for the targets below sent both ways.
@Suite struct InProcessDispatchTests {
    private static func server() throws -> TestServer {
        try TestServer(configuration: HTTPServerConfiguration(port: 0, threads: 2, maxBodyBytes: 1024, maxUploadBytes: 64 * 1024,
                                                              maxURLBytes: 256, maxHeaderBytes: 2048)) { router in
            router.get("/echo/{id}") { request in
                let query = request.query.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "|")
                return .text("\(try request.parameter("id"))|\(query)|\(request.remoteAddress?.description ?? "none")")
            }
            router.get("/inline", inline: true) { _ in .text("inline") }
            router.get("/cached") { _ in Response(status: 200, headers: HTTPHeaders([("Cache-Control", "max-age=60")]), body: Data("c".utf8)) }
            router.post("/small") { request in .text(String(request.body.count)) }
            router.post("/upload", uploads: true) { request in .text(String(request.body.count)) }
        }
    }

    private struct Answer: Equatable, CustomStringConvertible {
        var status: Int
        var body: String
        var cacheControl: String?
        var allow: String?
        var description: String { "\(status) \(body) cache=\(cacheControl ?? "-") allow=\(allow ?? "-")" }
    }

    @Test func answersEqualAConnectionsAnswers() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let targets: [(String, String, Data?)] = [
            ("GET", "/echo/al%69ce%20b?x=%C3%A9&y=a+b&y=second&flag&=v&z=1%2B1", nil),
            ("GET", "/echo/a?q=one%26two%3Dthree", nil), ("GET", "/echo/a?a=1&&b=2", nil), ("GET", "/echo/a?&a=1&", nil),
            ("GET", "/echo/victim%00", nil), ("GET", "/echo/a%zz", nil), ("GET", "/echo/a?x=%01", nil),
            ("GET", "/echo/" + String(repeating: "x", count: 300), nil),
            ("GET", "/nowhere", nil), ("DELETE", "/echo/a", nil), ("GET", "/inline", nil), ("HEAD", "/inline", nil), ("GET", "/cached", nil),
            ("POST", "/small", Data(count: 1000)), ("POST", "/small", Data(count: 5000)),
            ("POST", "/upload", Data(count: 5000)), ("POST", "/upload", Data(count: 70 * 1024)),
        ]
        for (method, target, body) in targets {
            let wire = try server.client().request(method, target, body: body)
            let expected = Answer(status: wire.status, body: String(decoding: wire.body, as: UTF8.self),
                                  cacheControl: wire.headers["cache-control"], allow: wire.headers["allow"])
            let response = await server.server.respond(method: method, target: target, headers: HTTPHeaders([("Host", "127.0.0.1")]),
                                                       body: body ?? Data())
            let answer = Answer(status: response.status, body: String(decoding: response.body, as: UTF8.self),
                                cacheControl: response.headers["Cache-Control"], allow: response.headers["Allow"])
            #expect(answer == expected, "\(method) \(target)")
            #expect(response.headers["X-Request-Id"] != nil)
        }
        let tooLong = await server.server.respond(method: "GET", target: "/echo/a", headers: HTTPHeaders([("X-Filler", String(repeating: "y", count: 3000))]),
                                                  body: Data())
        #expect(tooLong.status == 431)
    }

    /// A worker pool with no place left answers 503 in process as on a connection.
    @Test func aFullWorkerPoolIsBusyInProcessToo() async throws {
        let release = DispatchSemaphore(value: 0)
        let server = try TestServer(configuration: HTTPServerConfiguration(port: 0, threads: 1, workers: 1, queueLimit: 0)) { router in
            router.get("/hold") { _ in
                release.wait()
                return .text("held")
            }
        }
        defer { server.stop() }
        async let held = server.server.respond(method: "GET", target: "/hold", headers: HTTPHeaders(), body: Data())
        while server.server.workers.load == 0 { try await Task.sleep(nanoseconds: 1_000_000) }
        let busy = await server.server.respond(method: "GET", target: "/hold", headers: HTTPHeaders(), body: Data())
        #expect(busy.status == 503)
        release.signal()
        #expect(await held.status == 200)
    }
}
