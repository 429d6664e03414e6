@testable import CustosHTTP
import Foundation
import Testing

private struct Boom: Error {}

@Suite struct ServerBehaviourTests {
    private static func standardServer(_ configuration: HTTPServerConfiguration = HTTPServerConfiguration(port: 0, threads: 2)) throws -> TestServer {
        try TestServer(configuration: configuration) { router in
            router.get("/hello/{name}") { request in
                .json(raw: try JSONEncoder().encode(Greeting(name: request.parameter("name"), count: Int(request.query["n"] ?? "1") ?? 1)))
            }
            router.post("/echo") { request in
                .json(raw: try JSONEncoder().encode(request.decodeJSON(Greeting.self)), status: 201)
            }
            router.get("/boom") { _ in throw Boom() }
            router.get("/peer") { request in .text(request.remoteAddress?.description ?? "none") }
            router.get("/slow") { _ in
                Thread.sleep(forTimeInterval: 0.5)
                return .text("done")
            }
        }
    }

    @Test func routesWithParametersAndQuery() throws {
        let server = try Self.standardServer()
        defer { server.stop() }
        let reply = try server.client().request("GET", "/hello/ada?n=3")
        #expect(reply.status == 200)
        #expect(reply.headers["content-type"] == "application/json")
        #expect(try JSONDecoder().decode(Greeting.self, from: reply.body) == Greeting(name: "ada", count: 3))
    }

    @Test func remoteAddressIsThePeer() throws {
        let server = try Self.standardServer()
        defer { server.stop() }
        let reply = try server.client().request("GET", "/peer")
        #expect(String(decoding: reply.body, as: UTF8.self) == "127.0.0.1")
    }

    @Test func unknownRouteIs404JSON() throws {
        let server = try Self.standardServer()
        defer { server.stop() }
        let reply = try server.client().request("GET", "/missing")
        #expect(reply.status == 404)
        #expect(reply.errorCode == "not_found")
        #expect(reply.headers["content-type"] == "application/json")
    }

    @Test func wrongMethodIs405WithAllow() throws {
        let server = try Self.standardServer()
        defer { server.stop() }
        let reply = try server.client().request("DELETE", "/echo")
        #expect(reply.status == 405)
        #expect(reply.errorCode == "method_not_allowed")
        #expect(reply.headers["allow"] == "POST")
    }

    @Test func keepAliveServesSeveralRequestsOnOneConnection() throws {
        let server = try Self.standardServer()
        defer { server.stop() }
        let client = try server.client()
        for n in 1...3 {
            let reply = try client.request("GET", "/hello/k?n=\(n)")
            #expect(reply.status == 200)
            #expect(reply.headers["connection"]?.lowercased() != "close")
        }
        let posted = try client.request("POST", "/echo", headers: ["Content-Type": "application/json"],
                                        body: Data(#"{"name":"x","count":2}"#.utf8))
        #expect(posted.status == 201)
    }

    @Test func malformedJSONIs400() throws {
        let server = try Self.standardServer()
        defer { server.stop() }
        let reply = try server.client().request("POST", "/echo", headers: ["Content-Type": "application/json"],
                                                body: Data(#"{"name": "x", "#.utf8))
        #expect(reply.status == 400)
        #expect(reply.errorCode == "malformed_json")
    }

    @Test func emptyJSONBodyIs400() throws {
        let server = try Self.standardServer()
        defer { server.stop() }
        let reply = try server.client().request("POST", "/echo", headers: ["Content-Type": "application/json"], body: Data())
        #expect(reply.status == 400)
    }

    @Test func wellFormedButWrongShapeIs422() throws {
        let server = try Self.standardServer()
        defer { server.stop() }
        let client = try server.client()
        let wrongType = try client.request("POST", "/echo", headers: ["Content-Type": "application/json"],
                                           body: Data(#"{"name":"x","count":"two"}"#.utf8))
        #expect(wrongType.status == 422)
        #expect(wrongType.errorCode == "wrong_type")
        #expect((wrongType.json?["error"] as? [String: Any])?["message"] as? String == "Field 'count' must be of type integer.")
        let missing = try client.request("POST", "/echo", headers: ["Content-Type": "application/json"],
                                         body: Data(#"{"name":"x"}"#.utf8))
        #expect(missing.status == 422)
        #expect(missing.errorCode == "missing_field")
    }

    @Test func wrongContentTypeIs415() throws {
        let server = try Self.standardServer()
        defer { server.stop() }
        let reply = try server.client().request("POST", "/echo", headers: ["Content-Type": "text/plain"],
                                                body: Data(#"{"name":"x","count":1}"#.utf8))
        #expect(reply.status == 415)
        #expect(reply.errorCode == "unsupported_media_type")
    }

    @Test func jsonWithCharsetParameterIsAccepted() throws {
        let server = try Self.standardServer()
        defer { server.stop() }
        let reply = try server.client().request("POST", "/echo", headers: ["Content-Type": "application/json; charset=utf-8"],
                                                body: Data(#"{"name":"x","count":1}"#.utf8))
        #expect(reply.status == 201)
    }

    /// Only a trusted proxy names the client: its `X-Forwarded-For` (the last address, the one
    /// it added) replaces the peer; anyone else's header changes nothing.
    @Test(arguments: [true, false])
    func aTrustedProxyNamesTheClient(trusted: Bool) throws {
        let proxies: Set<RemoteAddress> = trusted ? [try #require(RemoteAddress(parsing: "127.0.0.1"))] : []
        let server = try TestServer(configuration: HTTPServerConfiguration(port: 0, threads: 2, trustedProxies: proxies)) { router in
            router.get("/whoami") { request in .text(request.remoteAddress?.description ?? "-") }
        }
        defer { server.stop() }
        func whoami(_ forwarded: String?) throws -> String {
            let reply = try server.client().request("GET", "/whoami", headers: forwarded.map { ["X-Forwarded-For": $0] } ?? [:])
            return String(decoding: reply.body, as: UTF8.self)
        }
        #expect(try whoami(nil) == "127.0.0.1")
        #expect(try whoami("203.0.113.9, 198.51.100.7") == (trusted ? "198.51.100.7" : "127.0.0.1"))
        #expect(try whoami("2001:db8::1") == (trusted ? "2001:db8::1" : "127.0.0.1"))
        #expect(try whoami("not an address") == "127.0.0.1")
    }

    /// A client behind the proxy who writes an `X-Forwarded-For` line of its own gains nothing:
    /// the proxy's appended value, the last across every line, is the address.
    @Test func theLastForwardedAddressAcrossAllLinesNamesTheClient() throws {
        let proxies: Set<RemoteAddress> = [try #require(RemoteAddress(parsing: "127.0.0.1"))]
        let server = try TestServer(configuration: HTTPServerConfiguration(port: 0, threads: 2, trustedProxies: proxies)) { router in
            router.get("/whoami") { request in .text(request.remoteAddress?.limitKey ?? "-") }
        }
        defer { server.stop() }
        func whoami(_ lines: [String]) throws -> String {
            let client = try server.client()
            let head = "GET /whoami HTTP/1.1\r\nHost: 127.0.0.1\r\n" + lines.map { "X-Forwarded-For: \($0)\r\n" }.joined() + "\r\n"
            try client.send(Data(head.utf8))
            return String(decoding: try client.readReply().body, as: UTF8.self)
        }
        #expect(try whoami(["6.6.6.6", "198.51.100.7"]) == "198.51.100.7")
        #expect(try whoami(["6.6.6.6, 7.7.7.7", "203.0.113.9, 198.51.100.7"]) == "198.51.100.7")
        // Every address of one IPv6 /64 is one client for the limits; an IPv4-mapped one is its IPv4.
        #expect(try whoami(["2001:db8:1:2::1"]) == "2001:db8:1:2::/64")
        #expect(try whoami(["2001:db8:1:2:ffff:ffff:ffff:fffe"]) == "2001:db8:1:2::/64")
        #expect(try whoami(["::ffff:198.51.100.7"]) == "198.51.100.7")
    }

    @Test func limitKeysGroupIPv6ByItsSlash64() throws {
        #expect(RemoteAddress(parsing: "198.51.100.7")?.limitKey == "198.51.100.7")
        #expect(RemoteAddress(parsing: "2001:db8::1")?.limitKey == "2001:db8:0:0::/64")
        #expect(RemoteAddress(parsing: "2001:db8:0:0:1::9")?.limitKey == RemoteAddress(parsing: "2001:db8::2")?.limitKey)
        #expect(RemoteAddress(parsing: "2001:db8:0:1::1")?.limitKey != RemoteAddress(parsing: "2001:db8::1")?.limitKey)
        #expect(RemoteAddress(parsing: "::1")?.limitKey == "0:0:0:0::/64")
    }

    /// A body trickled past the request deadline is cut off, however regular its bytes: an idle
    /// timeout alone would let one client hold a connection for ever.
    @Test func aBodyStillArrivingAfterTheDeadlineIsCutOff() throws {
        let server = try TestServer(configuration: HTTPServerConfiguration(port: 0, threads: 2, requestDeadlineSeconds: 1)) { router in
            router.post("/upload", uploads: true) { request in .text(String(request.body.count)) }
        }
        defer { server.stop() }
        let prompt = try server.client()
        #expect(try prompt.request("POST", "/upload", body: Data(count: 100)).status == 200)

        let slow = try server.client()
        try slow.send(Data("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n".utf8) + Data(count: 10))
        // The rest trickles in, a byte at a time, until the server hangs up (a send then fails:
        // the peer reset the connection it closed) or the body is complete. The pause is the
        // trickle's pace, not a wait for the deadline: the whole body takes at least 18 s, far
        // past the 1 s deadline, and each pause is far below the idle timeout.
        var hungUp = false
        for _ in 0..<90 {
            Thread.sleep(forTimeInterval: 0.2)
            do { try slow.send(Data(count: 1)) } catch { hungUp = true; break }
        }
        #expect(hungUp || slow.isClosedByPeer())
    }

    /// Headers trickled past the header deadline are cut off, however regular their lines:
    /// libmicrohttpd's idle timeout never fires for a client sending a line a second, and the
    /// request deadline covers bodies only. A request whose handler runs past the bound is
    /// not a slow client and is answered.
    @Test func headersStillArrivingAfterTheDeadlineAreCutOff() throws {
        var configuration = HTTPServerConfiguration(port: 0, threads: 2)
        configuration.headerDeadlineSeconds = 1
        let server = try TestServer(configuration: configuration) { router in
            router.get("/slow") { _ in Thread.sleep(forTimeInterval: 2.5); return .text("done") }
        }
        defer { server.stop() }
        let prompt = try server.client()
        #expect(try prompt.request("GET", "/slow").status == 200)

        let slow = try server.client()
        try slow.send(Data("GET /slow HTTP/1.1\r\nHost: x\r\n".utf8))
        // A header line every 0.2 s, far below the idle timeout, for at least 18 s: far past
        // the 1 s deadline, so only the deadline can end it.
        var hungUp = false
        for _ in 0..<90 {
            Thread.sleep(forTimeInterval: 0.2)
            do { try slow.send(Data("X-Filler: a\r\n".utf8)) } catch { hungUp = true; break }
        }
        #expect(hungUp || slow.isClosedByPeer())
        #expect(server.log.lines.contains { $0.contains("header_deadline") })
    }

    /// After an answer a keep-alive connection may wait idle as long as the idle timeout allows,
    /// even past the header deadline, and its next request is answered on the same connection.
    @Test func aKeepAliveConnectionMayIdlePastTheHeaderDeadline() throws {
        var configuration = HTTPServerConfiguration(port: 0, threads: 2, connectionTimeoutSeconds: 10)
        configuration.headerDeadlineSeconds = 1
        let server = try TestServer(configuration: configuration) { router in
            router.get("/ping") { _ in .text("pong") }
        }
        defer { server.stop() }
        let client = try server.client()
        #expect(try client.request("GET", "/ping").status == 200)
        Thread.sleep(forTimeInterval: 2.5)
        #expect(try client.request("GET", "/ping").status == 200)
    }

    /// Uploads being received hold memory from a budget, reserved on their headers before
    /// their body is buffered: past one client's share the next is 429, past everyone's 503,
    /// and the memory comes back when a request ends.
    @Test(arguments: [(perCaller: 1536 * 1024, status: 429, code: "too_many_uploads"), (perCaller: 0, status: 503, code: "server_busy")])
    func uploadsPastTheMemoryBudgetAreRefused(perCaller: Int, status: Int, code: String) throws {
        var configuration = HTTPServerConfiguration(port: 0, threads: 2, maxBodyBytes: 1024, maxUploadBytes: 1 << 20)
        configuration.uploadMemoryBytes = 1536 * 1024
        configuration.uploadMemoryPerCallerBytes = perCaller
        let server = try TestServer(configuration: configuration) { router in
            router.post("/upload", uploads: true) { request in .text(String(request.body.count)) }
        }
        defer { server.stop() }
        let megabyte = 1 << 20
        let holding = try server.client()
        try holding.send(Data("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: \(megabyte)\r\n\r\n".utf8) + Data(count: 1000))
        for _ in 0..<500 where server.server.uploadMemory.held == 0 { usleep(10_000) }
        #expect(server.server.uploadMemory.held == megabyte)

        let refused = try server.client().request("POST", "/upload", body: Data(count: megabyte))
        #expect(refused.status == status && refused.errorCode == code && refused.headers["retry-after"] == "1")

        try holding.send(Data(count: megabyte - 1000))
        let finished = try holding.readReply()
        #expect(finished.status == 200 && String(decoding: finished.body, as: UTF8.self) == String(megabyte))
        for _ in 0..<500 where server.server.uploadMemory.held > 0 { usleep(10_000) }
        let after = try server.client().request("POST", "/upload", body: Data(count: megabyte))
        #expect(after.status == 200)
    }

    /// Ordinary requests are held to a small body; only routes that take uploads get the
    /// large limit, declared or chunked.
    @Test func onlyUploadRoutesTakeLargeBodies() throws {
        let server = try TestServer(configuration: HTTPServerConfiguration(port: 0, threads: 2, maxBodyBytes: 1024, maxUploadBytes: 256 * 1024)) { router in
            router.post("/small") { request in .text(String(request.body.count)) }
            router.post("/upload", uploads: true) { request in .text(String(request.body.count)) }
        }
        defer { server.stop() }
        let body = Data(repeating: UInt8(ascii: "a"), count: 100 * 1024)
        let small = try server.client().request("POST", "/small", body: body)
        #expect(small.status == 413 && small.errorCode == "payload_too_large")
        let upload = try server.client().request("POST", "/upload", body: body)
        #expect(upload.status == 200 && String(decoding: upload.body, as: UTF8.self) == "102400")
        let tooLarge = try server.client().request("POST", "/upload", body: Data(count: 300 * 1024))
        #expect(tooLarge.status == 413)

        let client = try server.client()
        var chunked = Data("POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        for _ in 0..<8 { chunked += Data("1000\r\n".utf8) + Data(repeating: UInt8(ascii: "b"), count: 4096) + Data("\r\n".utf8) }
        chunked += Data("0\r\n\r\n".utf8)
        try client.send(chunked)
        let reply = try client.readReply()
        #expect(reply.status == 200 && String(decoding: reply.body, as: UTF8.self) == "32768")
    }

    /// One address cannot hold every connection: beyond the per-address limit a new
    /// connection is closed at once, while those already open keep being served.
    @Test func connectionsPerAddressAreLimited() throws {
        #expect(HTTPServerConfiguration().maxConnectionsPerIP > 0)
        let server = try Self.standardServer(HTTPServerConfiguration(port: 0, threads: 2, maxConnectionsPerIP: 2))
        defer { server.stop() }
        let first = try server.client(), second = try server.client()
        #expect(try first.request("GET", "/hello/a").status == 200)
        #expect(try second.request("GET", "/hello/b").status == 200)
        let third = try server.client()
        #expect(third.isClosedByPeer())
        #expect(try first.request("GET", "/hello/c").status == 200)
    }

    @Test func oversizedBodyIs413JSON() throws {
        let server = try Self.standardServer(HTTPServerConfiguration(port: 0, threads: 2, maxBodyBytes: 1024))
        defer { server.stop() }
        let big = Data(repeating: UInt8(ascii: "a"), count: 64 * 1024)
        let declared = try server.client().request("POST", "/echo", headers: ["Content-Type": "application/json"], body: big)
        #expect(declared.status == 413)
        #expect(declared.errorCode == "payload_too_large")

        // Chunked: no Content-Length to refuse early; the body is counted as it arrives.
        let client = try server.client()
        var chunked = Data("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        for _ in 0..<4 {
            chunked += Data("1000\r\n".utf8) + Data(repeating: UInt8(ascii: "b"), count: 4096) + Data("\r\n".utf8)
        }
        chunked += Data("0\r\n\r\n".utf8)
        try client.send(chunked)
        let reply = try client.readReply()
        #expect(reply.status == 413)
        #expect(reply.errorCode == "payload_too_large")
    }

    @Test func longURIIs414AndLargeHeadersAre431() throws {
        let server = try Self.standardServer(HTTPServerConfiguration(port: 0, threads: 2, maxURLBytes: 256, maxHeaderBytes: 1024))
        defer { server.stop() }
        let long = try server.client().request("GET", "/hello/" + String(repeating: "x", count: 300))
        #expect(long.status == 414)
        #expect(long.errorCode == "uri_too_long")
        let headers = try server.client().request("GET", "/hello/x", headers: ["X-Filler": String(repeating: "y", count: 1500)])
        #expect(headers.status == 431)
        #expect(headers.errorCode == "headers_too_large")
    }

    @Test func thrownErrorIs500WithGenericMessageAndDetailOnlyInLog() throws {
        let server = try Self.standardServer()
        defer { server.stop() }
        let reply = try server.client().request("GET", "/boom")
        #expect(reply.status == 500)
        #expect(reply.errorCode == "internal_error")
        #expect(!String(decoding: reply.body, as: UTF8.self).contains("Boom"))
        #expect(server.log.lines.contains { $0.contains("unhandled_error") && $0.contains("Boom") })
    }

    @Test func mappedErrorsUseTheMapper() throws {
        let server = try TestServer(errorMapper: { error in
            error is Boom ? HTTPError(status: 503, code: "database_unavailable", message: "down") : nil
        }) { router in
            router.get("/boom") { _ in throw Boom() }
        }
        defer { server.stop() }
        let reply = try server.client().request("GET", "/boom")
        #expect(reply.status == 503)
        #expect(reply.errorCode == "database_unavailable")
    }

    @Test func requestIDIsEchoedOrGenerated() throws {
        let server = try Self.standardServer()
        defer { server.stop() }
        let client = try server.client()
        let echoed = try client.request("GET", "/hello/a", headers: ["X-Request-Id": "abc-123"])
        #expect(echoed.headers["x-request-id"] == "abc-123")
        let hostile = try client.request("GET", "/hello/a", headers: ["X-Request-Id": "bad id\"{}"])
        #expect(hostile.headers["x-request-id"] != nil)
        #expect(hostile.headers["x-request-id"] != "bad id\"{}")
        let generated = try client.request("GET", "/hello/a")
        #expect(generated.headers["x-request-id"]?.isEmpty == false)
        #expect(generated.headers["x-request-id"] != hostile.headers["x-request-id"])
    }

    @Test func accessLogHasOneJSONLinePerRequestWithoutBodies() throws {
        let server = try Self.standardServer()
        let client = try server.client()
        _ = try client.request("POST", "/echo", headers: ["Content-Type": "application/json", "X-Request-Id": "log-test",
                                                         "Authorization": "Bearer secret-token"],
                               body: Data(#"{"name":"secret-body","count":1}"#.utf8))
        server.stop()
        let lines = server.log.lines.filter { $0.contains(#""event":"request""#) }
        #expect(lines.count == 1)
        let line = try #require(lines.first)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["method"] as? String == "POST")
        #expect(object["route"] as? String == "/echo")
        #expect(object["status"] as? Int == 201)
        #expect(object["request_id"] as? String == "log-test")
        #expect(object["duration_us"] as? Int != nil)
        #expect(!line.contains("secret-body"))
        #expect(!line.contains("secret-token"))
    }

    @Test func metricsCountRequestsByRouteAndStatus() throws {
        let server = try Self.standardServer()
        defer { server.stop() }
        let client = try server.client()
        _ = try client.request("GET", "/hello/a")
        _ = try client.request("GET", "/hello/b")
        _ = try client.request("GET", "/missing")
        let text = server.server.metrics.render()
        #expect(text.contains(#"custos_http_requests_total{method="GET",route="/hello/{name}",status="200"} 2"#))
        #expect(text.contains(#"custos_http_requests_total{method="GET",route="unmatched",status="404"} 1"#))
        #expect(text.contains(#"custos_http_request_duration_seconds_count{method="GET",route="/hello/{name}"} 2"#))
        #expect(text.contains("custos_http_requests_in_flight"))
    }

    @Test func headAnswersWithoutBody() throws {
        let server = try Self.standardServer()
        defer { server.stop() }
        let reply = try server.client().request("HEAD", "/hello/a")
        #expect(reply.status == 200)
        #expect(reply.body.isEmpty)
    }

    @Test func shutdownDrainsAnInFlightRequest() throws {
        let server = try Self.standardServer()
        let client = try server.client()
        // A thread of its own: a blocking read must not wait for (or starve) the shared
        // concurrency pool, which other tests keep busy.
        let reply = ReplyBox()
        let finished = DispatchSemaphore(value: 0)
        Thread {
            reply.set(Result { try client.request("GET", "/slow") })
            finished.signal()
        }.start()
        // Wait until the slow request is being handled, then stop.
        let deadline = Date().addingTimeInterval(60)
        while server.server.metrics.inFlight == 0 && Date() < deadline { usleep(2_000) }
        #expect(server.server.metrics.inFlight == 1)
        server.stop()
        finished.wait()
        let answered = try #require(try reply.get()?.get())
        #expect(answered.status == 200)
        #expect(String(decoding: answered.body, as: UTF8.self) == "done")
        #expect(throws: (any Error).self) { try RawHTTPClient(port: server.port).request("GET", "/hello/a") }
    }
}

/// The outcome of a request made on another thread.
private final class ReplyBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Result<RawHTTPClient.Reply, any Error>?
    func set(_ result: Result<RawHTTPClient.Reply, any Error>) { lock.withLock { value = result } }
    func get() throws -> Result<RawHTTPClient.Reply, any Error>? { lock.withLock { value } }
}

/// The path is what it says: a decoded NUL, a control character or a malformed escape is a
/// 400, never a shorter path that reaches another route.
@Suite struct StrictPathTests {
    @Test func nulControlAndMalformedEscapesAreRefused() throws {
        let server = try TestServer { router in
            router.get("/users/{id}") { request in .text("user " + (try request.parameter("id"))) }
            router.get("/users/{id}/devices") { request in .text("devices of " + (try request.parameter("id"))) }
        }
        defer { server.stop() }
        for path in ["/users/alice%00zzz/devices", "/users/victim%00", "/users/a%0Ab", "/users/a%zz", "/users/a%4", "/users/a%7F",
                     "/users/alice/devices?x=%00", "/users/alice?%01=y"] {
            let reply = try server.client().request("GET", path)
            #expect(reply.status == 400 && reply.errorCode == "invalid_path", "\(path): \(reply.status)")
            #expect(reply.headers["x-request-id"] != nil)
        }
        let fine = try server.client().request("GET", "/users/al%69ce%20b/devices?x=%C3%A9")
        #expect(fine.status == 200 && String(decoding: fine.body, as: UTF8.self) == "devices of alice b")
    }
}
