@testable import CustosHTTP
import Foundation
import Testing

/// Handlers run on a bounded pool of workers, off the event loop: while every worker is held
/// by a slow handler, inline routes still answer on the loop, and a request beyond the queue
/// is refused at once with 503 `server_busy` rather than left waiting.
@Suite struct WorkerPoolTests {
    @Test func inlineRoutesAnswerWhileEveryWorkerIsHeldAndTheOverflowIs503() throws {
        let gate = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        // One event loop: before the pool, one held handler stalled every connection.
        let configuration = HTTPServerConfiguration(port: 0, threads: 1, workers: 2, queueLimit: 1)
        let server = try TestServer(configuration: configuration) { router in
            router.get("/healthz", inline: true) { _ in .text("alive") }
            router.get("/hold") { _ in
                started.signal()
                gate.wait()
                return .text("released")
            }
        }
        defer { server.stop() }

        // Two requests hold both workers; a third waits in the queue.
        var held: [RawHTTPClient] = []
        for _ in 0..<3 {
            let client = try server.client()
            try client.send(Data("GET /hold HTTP/1.1\r\nHost: test\r\n\r\n".utf8))
            held.append(client)
        }
        #expect(started.wait(timeout: .now() + 10) == .success)
        #expect(started.wait(timeout: .now() + 10) == .success)
        let deadline = Date().addingTimeInterval(10)
        while server.server.workers.load < 3 && Date() < deadline { usleep(2_000) }
        #expect(server.server.workers.load == 3)

        let health = try server.client().request("GET", "/healthz")
        #expect(health.status == 200 && String(decoding: health.body, as: UTF8.self) == "alive")
        let busy = try server.client().request("GET", "/hold")
        #expect(busy.status == 503 && busy.errorCode == "server_busy", "\(busy.status) \(String(describing: busy.errorCode))")
        #expect(busy.headers["retry-after"] == "1")

        for _ in held { gate.signal() }
        for client in held {
            let reply = try client.readReply()
            #expect(reply.status == 200 && String(decoding: reply.body, as: UTF8.self) == "released")
        }
        // The pool is free again.
        let after = try server.client().request("GET", "/healthz")
        #expect(after.status == 200)
    }

    /// While a stopping server lets a request in flight finish, a new connection is refused at
    /// once (it used to be queued by the kernel for the whole grace, then reset), and the request
    /// in flight is still answered.
    @Test func aStoppingServerRefusesNewConnectionsAndAnswersThoseInFlight() throws {
        let gate = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        var configuration = HTTPServerConfiguration(port: 0, threads: 1, workers: 2)
        configuration.shutdownGraceSeconds = 30
        let server = try TestServer(configuration: configuration) { router in
            router.get("/hold") { _ in
                started.signal()
                gate.wait()
                return .text("finished")
            }
        }
        let port = server.port
        let client = try server.client()
        try client.send(Data("GET /hold HTTP/1.1\r\nHost: test\r\n\r\n".utf8))
        #expect(started.wait(timeout: .now() + 10) == .success)
        let stopped = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            server.stop()
            stopped.signal()
        }
        var refused: String?
        for _ in 0..<100 where refused == nil {
            usleep(20_000)
            do { _ = try RawHTTPClient(port: port) } catch { refused = "\(error)" }
        }
        #expect(refused?.contains("errno \(ECONNREFUSED)") == true, "\(refused ?? "every connection was accepted")")
        gate.signal()
        let reply = try client.readReply()
        #expect(reply.status == 200 && reply.body == Data("finished".utf8))
        #expect(stopped.wait(timeout: .now() + 10) == .success)
    }

    /// A handler still running when the shutdown grace runs out is abandoned: its client gets
    /// 503 `server_stopping` (libmicrohttpd aborts the process if stopped with a connection
    /// still suspended), and when the handler ends it resumes nothing.
    @Test func aHandlerThatOutlivesTheShutdownIsAbandonedSafely() throws {
        let gate = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        var configuration = HTTPServerConfiguration(port: 0, threads: 1, workers: 1, queueLimit: 0)
        configuration.shutdownGraceSeconds = 0.05
        let server = try TestServer(configuration: configuration) { router in
            router.get("/hold") { _ in
                started.signal()
                gate.wait()
                finished.signal()
                return .text("late")
            }
        }
        let client = try server.client()
        try client.send(Data("GET /hold HTTP/1.1\r\nHost: test\r\n\r\n".utf8))
        #expect(started.wait(timeout: .now() + 10) == .success)
        server.stop()
        let reply = try client.readReply()
        #expect(reply.status == 503 && reply.errorCode == "server_stopping", "\(reply.status)")
        gate.signal()
        #expect(finished.wait(timeout: .now() + 10) == .success)
        // The worker has returned from the handler; give it the moment to (not) resume.
        usleep(50_000)
        #expect(server.server.port == nil)
    }
}
