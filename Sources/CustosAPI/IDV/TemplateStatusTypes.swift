import Foundation

/// `GET /v1/idv/template` (and the answer of `DELETE`): whether the user has a face template
/// on the server. `status_code` 100: it exists; 600: it does not.
public struct TemplateStatusResponse: Codable, Equatable, Sendable {
    public var statusCode: StatusCode
    public var statusMessage: String
    public var orchestrationUseCase: UseCase
    /// true when the template exists (after a delete: whether one was deleted).
    public var result: Bool
    public var attemptsLeft: Int
    public var userID: String

    enum CodingKeys: String, CodingKey {
        case result
        case statusCode = "status_code"
        case statusMessage = "status_message"
        case orchestrationUseCase = "orchestration_use_case"
        case attemptsLeft = "attempts_left"
        case userID = "user_id"
    }

    public init(statusCode: StatusCode, statusMessage: String, orchestrationUseCase: UseCase, result: Bool, attemptsLeft: Int, userID: String) {
        self.statusCode = statusCode
        self.statusMessage = statusMessage
        self.orchestrationUseCase = orchestrationUseCase
        self.result = result
        self.attemptsLeft = attemptsLeft
        self.userID = userID
    }
}

/// `POST /v1/users/{id}/enrollment-grant` (API key, scope rp): the user may enrol once —
/// a first template where the server asks for grants, or a replacement of the existing one.
public struct EnrollmentGrantResponse: Codable, Equatable, Sendable {
    public var userID: String
    public var expiresAt: Date

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case expiresAt = "expires_at"
    }

    public init(userID: String, expiresAt: Date) {
        self.userID = userID
        self.expiresAt = expiresAt
    }
}
