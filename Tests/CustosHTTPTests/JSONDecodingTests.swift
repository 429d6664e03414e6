@testable import CustosHTTP
import Foundation
import Testing

@Suite struct JSONDecodingTests {
    private func request(_ body: String, contentType: String? = "application/json") -> Request {
        var headers = HTTPHeaders()
        if let contentType { headers.add("Content-Type", contentType) }
        return Request(method: .post, path: "/", headers: headers, body: Data(body.utf8))
    }

    private func failure(_ body: String, contentType: String? = "application/json") -> HTTPError? {
        do {
            _ = try request(body, contentType: contentType).decodeJSON(Greeting.self)
            return nil
        } catch {
            return error as? HTTPError
        }
    }

    @Test func decodesAValidBody() throws {
        #expect(try request(#"{"name":"a","count":1}"#).decodeJSON(Greeting.self) == Greeting(name: "a", count: 1))
    }

    @Test func statusesForEachKindOfBadBody() {
        #expect(failure("not json")?.status == 400)
        #expect(failure("[1,2")?.status == 400)
        #expect(failure(#"{"name":"a","count":1}"#, contentType: nil)?.status == 415)
        #expect(failure(#"{"name":"a","count":1}"#, contentType: "application/jsonx")?.status == 415)
        #expect(failure(#"{"name":null,"count":1}"#)?.code == "missing_field")
        #expect(failure(#"{"name":"a","count":1.5}"#)?.status == 422)
        #expect(failure(#"[]"#)?.status == 422)
    }

    @Test func errorBodyEscapesStrings() throws {
        let response = Response.error(HTTPError(status: 400, code: "x", message: "quote \" and \\ and \n and \u{1}"))
        let decoded = try JSONSerialization.jsonObject(with: response.body) as? [String: [String: String]]
        #expect(decoded?["error"]?["message"] == "quote \" and \\ and \n and \u{1}")
    }
}
