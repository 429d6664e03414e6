import CustosAPI
import CustosSDK
import Foundation
import Synchronization
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An app (or a test) supplies its own transport: the clients send every request through it
/// and read its answers with the same error model as from the network.
@Suite struct HTTPExchangeTests {
    /// Answers from a table and remembers what was asked.
    final class RecordedExchange: HTTPExchange {
        let answers: [String: (Int, Data)]
        let asked = Mutex<[String]>([])

        init(_ answers: [String: (Int, Data)]) { self.answers = answers }

        func exchange(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
            let line = "\(request.httpMethod ?? "GET") \(request.url?.path ?? "") \(request.value(forHTTPHeaderField: "Authorization") ?? "-")"
            asked.withLock { $0.append(line) }
            guard let (status, body) = answers["\(request.httpMethod ?? "GET") \(request.url?.path ?? "")"] else {
                throw URLError(.cannotConnectToHost)
            }
            return (body, HTTPURLResponse(url: request.url!, statusCode: status, httpVersion: "HTTP/1.1", headerFields: nil)!)
        }
    }

    static let server = URL(string: "https://auth.example.test")!

    @Test func theAdminClientSendsThroughTheSuppliedExchange() async throws {
        let user = #"{"user_id":"a b","status":"active","created_at":"2026-01-01T00:00:00Z","locked":false}"#
        let exchange = RecordedExchange(["GET /v1/users/a b": (200, Data(user.utf8)),
                                         "DELETE /v1/users/gone": (404, Data(#"{"error":{"code":"not_found","message":"No such user."}}"#.utf8))])
        let admin = try CustosAdminClient(serverURL: Self.server, apiKey: "ck_test", exchange: exchange)
        #expect(try await admin.user("a b").userID == "a b")
        await #expect(throws: CustosError.self) { try await admin.deleteUser("gone") }
        do {
            try await admin.deleteUser("gone")
        } catch let error as CustosError {
            #expect(error.code == "not_found" && error.httpStatus == 404)
        }
        _ = try? await admin.grantEnrollment("nobody")
        #expect(exchange.asked.withLock { $0 } == ["GET /v1/users/a b Bearer ck_test", "DELETE /v1/users/gone Bearer ck_test",
                                                   "DELETE /v1/users/gone Bearer ck_test", "POST /v1/users/nobody/enrollment-grant Bearer ck_test"])
    }

    @Test func anExchangeThatCannotReachTheServerIsATransportFailure() async throws {
        let client = try CustosClient(configuration: .init(serverURL: Self.server, exchange: RecordedExchange([:])))
        do {
            _ = try await client.health()
            Issue.record("health answered without a server")
        } catch let error as CustosError {
            #expect(error.code == "transport_failed" && error.longErrorCode == 901)
        }
    }
}
