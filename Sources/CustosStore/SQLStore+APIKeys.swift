import CustosCore
import Foundation

// MARK: - APIKeyStore

extension SQLStore: APIKeyStore {
    /// The columns every API-key query selects, in the order `apiKey(from:)` reads them.
    private static let apiKeyColumns = "id, scope, label, digest, created_at, revoked_at"

    public func createAPIKey(_ key: APIKey) throws {
        do {
            try database.execute(
                "INSERT INTO api_keys (\(Self.apiKeyColumns)) VALUES (?, ?, ?, ?, ?, ?)",
                [
                    .text(key.id), .text(key.scope.rawValue), .text(key.label), .blob(key.digest),
                    .date(key.createdAt), .optionalDate(key.revokedAt),
                ]
            )
        } catch StoreError.duplicate {
            // The database's message would name the key; the digest stays out of logs.
            throw StoreError.duplicate("an API key with this id or digest already exists")
        }
    }

    /// The key with this digest, revoked or not (refusing a revoked key is the caller's
    /// decision).
    public func apiKey(digest: Data) throws -> APIKey? {
        let rows = try database.select("SELECT \(Self.apiKeyColumns) FROM api_keys WHERE digest = ?", [.blob(digest)])
        return try rows.first.map(Self.apiKey(from:))
    }

    /// Oldest first; keys created in the same millisecond in id order.
    public func apiKeys() throws -> [APIKey] {
        let rows = try database.select("SELECT \(Self.apiKeyColumns) FROM api_keys ORDER BY created_at, id")
        return try rows.map(Self.apiKey(from:))
    }

    @discardableResult
    public func revokeAPIKey(id: String, at: Date) throws -> Bool {
        let changed = try database.execute(
            "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
            [.date(at), .text(id)]
        )
        return changed > 0
    }

    private static func apiKey(from row: SQLRow) throws -> APIKey {
        APIKey(
            id: try row.string(0),
            scope: try row.enumValue(APIKey.Scope.self, 1, column: "api_keys.scope"),
            label: try row.string(2),
            digest: try row.data(3),
            createdAt: try row.date(4),
            revokedAt: try row.optionalDate(5)
        )
    }
}
