import CustosAPI
import Foundation
import Synchronization

/// The contract status an answer carries (`status_code` at the top level, or inside an error
/// envelope's `error`), with the `user_id` when it names one. Read from every answer, success
/// or error, so a status that concerns the whole client (153: the user is locked) is seen
/// whichever call met it.
struct AnsweredStatus: Sendable, Equatable {
    let statusCode: StatusCode
    let userID: String?

    /// Nil when the body is not a JSON object with an integer `status_code`.
    init?(_ body: Data) {
        guard let peek = try? JSONDecoder().decode(Peek.self, from: body),
              let statusCode = peek.statusCode ?? peek.error?.statusCode else { return nil }
        self.statusCode = statusCode
        userID = peek.userID
    }

    private struct Peek: Decodable {
        struct Nested: Decodable {
            let statusCode: StatusCode?
            enum CodingKeys: String, CodingKey { case statusCode = "status_code" }
        }
        let statusCode: StatusCode?
        let userID: String?
        let error: Nested?
        enum CodingKeys: String, CodingKey {
            case error
            case statusCode = "status_code"
            case userID = "user_id"
        }
    }
}

/// Tells the client about every contract status the transport sees, without the transport
/// knowing about sessions or events. The client installs its handler once it exists (the
/// transport is built first, in the client's initialiser).
final class AnswerObserver: Sendable {
    private let handler = Mutex<(@Sendable (AnsweredStatus) -> Void)?>(nil)

    func install(_ handler: @escaping @Sendable (AnsweredStatus) -> Void) {
        self.handler.withLock { $0 = handler }
    }

    /// Runs on the calling task, before the call that met the answer returns, so what the
    /// handler does (clearing the session) is done by the time the caller sees the result.
    func observe(_ body: Data) {
        guard let status = AnsweredStatus(body), let handler = handler.withLock({ $0 }) else { return }
        handler(status)
    }
}
