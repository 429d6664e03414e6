import CustosAPI

/// Whether the user has a template on the server (100) or not (600).
public struct TemplateStatus: Sendable, Equatable {
    public var userID: String
    public var exists: Bool
    public var attemptsLeft: Int
    public var statusCode: StatusCode { exists ? .success : .noTemplate }
}
