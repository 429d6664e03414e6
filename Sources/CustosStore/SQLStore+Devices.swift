import CustosCore
import Foundation

// MARK: - DeviceStore

extension SQLStore: DeviceStore {
    /// The columns every device query selects, in the order `device(from:)` reads them.
    private static let deviceColumns = """
        id, user_id, name, public_key_jwk, key_thumbprint, created_at, last_used_at, password_verified_at, revoked_at, sign_count,
        bound_by, bound_from, probation_until
        """

    /// A device of a user that does not exist is refused with `StoreError.failure`
    /// (foreign key).
    public func addDevice(_ device: Device) throws {
        do {
            try database.execute(
                "INSERT INTO devices (\(Self.deviceColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    .text(device.id), .text(device.userID), .text(device.name), .text(device.publicKeyJWK),
                    .text(device.keyThumbprint), .date(device.createdAt), .optionalDate(device.lastUsedAt),
                    .optionalDate(device.passwordVerifiedAt), .optionalDate(device.revokedAt), .integer(Int64(device.signCount)),
                    .text(device.boundBy.rawValue), .optionalText(device.boundFrom), .optionalDate(device.probationUntil),
                ]
            )
        } catch StoreError.duplicate {
            throw StoreError.duplicate("a device with this id or key thumbprint already exists")
        }
    }

    public func device(id: String) throws -> Device? {
        let rows = try database.select("SELECT \(Self.deviceColumns) FROM devices WHERE id = ?", [.text(id)])
        return try rows.first.map(Self.device(from:))
    }

    /// Oldest first; devices created in the same millisecond in id order.
    public func devices(userID: String) throws -> [Device] {
        let rows = try database.select(
            "SELECT \(Self.deviceColumns) FROM devices WHERE user_id = ? ORDER BY created_at, id",
            [.text(userID)]
        )
        return try rows.map(Self.device(from:))
    }

    /// One transaction: sets `revoked_at` (only if not yet set) and deletes the device's
    /// sessions.
    @discardableResult
    public func revokeDevice(id: String, at: Date) throws -> Bool {
        try database.transaction { connection in
            let revoked = try connection.execute(
                "UPDATE devices SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
                [.date(at), .text(id)]
            )
            guard revoked > 0 else { return false }
            try connection.execute("DELETE FROM sessions WHERE device_id = ?", [.text(id)])
            return true
        }
    }

    public func confirmDevice(id: String, by binding: DeviceBinding, probationUntil: Date?) throws -> Bool {
        try database.execute(
            "UPDATE devices SET bound_by = ?, probation_until = ? WHERE id = ? AND bound_by = 'password' AND revoked_at IS NULL",
            [.text(binding.rawValue), .optionalDate(probationUntil), .text(id)]) == 1
    }

    /// Sets `lastUsedAt`, and `passwordVerifiedAt` too when `passwordVerified`; a device that
    /// does not exist is ignored.
    public func touchDevice(id: String, at: Date, passwordVerified: Bool) throws {
        if passwordVerified {
            try database.execute(
                "UPDATE devices SET last_used_at = ?, password_verified_at = ? WHERE id = ?",
                [.date(at), .date(at), .text(id)]
            )
        } else {
            try database.execute("UPDATE devices SET last_used_at = ? WHERE id = ?", [.date(at), .text(id)])
        }
    }

    private static func device(from row: SQLRow) throws -> Device {
        Device(
            id: try row.string(0),
            userID: try row.string(1),
            name: try row.string(2),
            publicKeyJWK: try row.string(3),
            keyThumbprint: try row.string(4),
            createdAt: try row.date(5),
            lastUsedAt: try row.optionalDate(6),
            passwordVerifiedAt: try row.optionalDate(7),
            revokedAt: try row.optionalDate(8),
            signCount: UInt32(clamping: try row.int64(9)),
            boundBy: DeviceBinding(rawValue: try row.string(10)) ?? .unrecorded,
            boundFrom: try row.optionalString(11),
            probationUntil: try row.optionalDate(12)
        )
    }
}
