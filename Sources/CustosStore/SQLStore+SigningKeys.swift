import CustosCore
import Foundation

// MARK: - SigningKeyStore

extension SQLStore: SigningKeyStore {
    public func signingKeys(now: Date) throws -> [StoredSigningKey] {
        let rows = try database.select(
            """
            SELECT kid, sealed_key, public_jwk, created_at, activates_at, retires_at FROM signing_keys
            WHERE retires_at IS NULL OR retires_at > ? ORDER BY activates_at, created_at, kid
            """,
            [.date(now)]
        )
        return try rows.map {
            StoredSigningKey(kid: try $0.string(0), sealedPrivateKey: try $0.data(1), publicJWK: try $0.string(2),
                             createdAt: try $0.date(3), activatesAt: try $0.date(4), retiresAt: try $0.optionalDate(5))
        }
    }

    /// Serialised like template key activation (PostgreSQL table lock, SQLite single writer),
    /// so two rotations at once both leave their key and retire the older ones consistently.
    public func addSigningKey(_ key: StoredSigningKey, retireOthersAt: Date) throws {
        try database.transaction { connection in
            if database.dialect == .postgresql {
                try connection.execute("LOCK TABLE signing_keys IN EXCLUSIVE MODE")
            }
            _ = try connection.execute(
                "UPDATE signing_keys SET retires_at = ? WHERE (retires_at IS NULL OR retires_at > ?) AND substr(kid, 1, 3) = ?",
                [.date(retireOthersAt), .date(retireOthersAt), .text(String(key.kid.prefix(3)))])
            _ = try connection.execute(
                "INSERT INTO signing_keys (kid, sealed_key, public_jwk, created_at, activates_at, retires_at) VALUES (?, ?, ?, ?, ?, NULL)",
                [.text(key.kid), .blob(key.sealedPrivateKey), .text(key.publicJWK), .date(key.createdAt), .date(key.activatesAt)])
        }
    }
}
