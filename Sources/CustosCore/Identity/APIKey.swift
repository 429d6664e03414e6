import CustosAPI
import Foundation

/// A credential of a relying party's back end or of an administrator. Shown once at
/// creation; only its digest is stored.
public struct APIKey: Equatable, Sendable {
    /// `admin` (everything, including API keys) or `rp` (relying-party operations: users, devices, verdicts).
    public typealias Scope = APIKeyScope

    public var id: String
    public var scope: Scope
    public var label: String
    public var digest: Data
    public var createdAt: Date
    public var revokedAt: Date?

    public init(id: String, scope: Scope, label: String, digest: Data, createdAt: Date, revokedAt: Date? = nil) {
        self.id = id
        self.scope = scope
        self.label = label
        self.digest = digest
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }
}
