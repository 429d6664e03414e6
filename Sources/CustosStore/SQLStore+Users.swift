import CustosAPI
import CustosCore
import Foundation

// MARK: - UserStore

extension SQLStore: UserStore {
    /// The columns every user query selects, in the order `user(from:)` reads them.
    private static let userColumns =
        "id, status, created_at, password_hash, password_changed_at, locked_until, lockout_count, created_by, password_must_change"

    public func createUser(_ user: User) throws {
        do {
            try database.execute(
                "INSERT INTO users (\(Self.userColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [.text(user.id)] + Self.userFields(user)
            )
        } catch StoreError.duplicate {
            throw StoreError.duplicate("a user with this id already exists")
        }
    }

    public func user(id: String) throws -> User? {
        let rows = try database.select("SELECT \(Self.userColumns) FROM users WHERE id = ?", [.text(id)])
        return try rows.first.map(Self.user(from:))
    }

    /// Keyset paging in byte order of the ids (both dialects); a `limit` of 0 or less
    /// returns no users.
    public func users(after afterID: String?, limit: Int, createdBy: String?) throws -> [User] {
        guard limit > 0 else { return [] }
        var conditions: [String] = []
        var values: [SQLValue] = []
        if let afterID {
            conditions.append("id > ?")
            values.append(.text(afterID))
        }
        if let createdBy {
            conditions.append("created_by = ?")
            values.append(.text(createdBy))
        }
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        let rows = try database.select("SELECT \(Self.userColumns) FROM users\(filter) ORDER BY id LIMIT ?",
                                       values + [.integer(Int64(limit))])
        return try rows.map(Self.user(from:))
    }

    public func userClaims(id: String) throws -> UserClaims? {
        guard let json = try database.select("SELECT claims FROM users WHERE id = ?", [.text(id)]).first?.optionalString(0) else { return nil }
        return try JSONDecoder().decode(UserClaims.self, from: Data(json.utf8))
    }

    @discardableResult
    public func setUserClaims(_ claims: UserClaims?, id: String) throws -> Bool {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = try claims.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
        return try database.execute("UPDATE users SET claims = ? WHERE id = ?", [json.map(SQLValue.text) ?? .null, .text(id)]) > 0
    }

    /// Replaces every field, `createdAt` included.
    @discardableResult
    public func updateUser(_ user: User) throws -> Bool {
        let changed = try database.execute(
            """
            UPDATE users SET status = ?, created_at = ?, password_hash = ?, password_changed_at = ?,
                             locked_until = ?, lockout_count = ?, created_by = ?, password_must_change = ?
            WHERE id = ?
            """,
            Self.userFields(user) + [.text(user.id)]
        )
        return changed > 0
    }

    public func changeUser(id: String, _ change: UserChange) throws -> Bool {
        let active = SQLValue.text(User.Status.active.rawValue), disabled = SQLValue.text(User.Status.disabled.rawValue)
        let (assignments, values, condition): (String, [SQLValue], (String, SQLValue)?) = switch change {
        case .activate(let hash, let at):
            ("status = ?, password_hash = ?, password_changed_at = ?, password_must_change = 0", [active, .text(hash), .date(at)],
             ("status = ?", .text(User.Status.pendingActivation.rawValue)))
        case .password(let hash, let at):
            ("password_hash = ?, password_changed_at = ?, password_must_change = 0", [.text(hash), .date(at)], nil)
        case .disable:
            ("status = ?", [disabled], nil)
        case .enable:
            ("status = CASE WHEN password_hash IS NULL THEN ? ELSE ? END",
             [.text(User.Status.pendingActivation.rawValue), active], ("status = ?", disabled))
        case .lock(let until):
            ("locked_until = ?, lockout_count = lockout_count + 1", [.date(until)], nil)
        case .unlock:
            ("locked_until = NULL", [], nil)
        case .expirePassword:
            ("password_must_change = 1", [], ("password_hash IS NOT NULL AND status = ?", active))
        case .reset(let at):
            ("status = ?, password_hash = NULL, password_changed_at = ?, locked_until = NULL, password_must_change = 0",
             [.text(User.Status.pendingActivation.rawValue), .date(at)], ("status <> ?", disabled))
        }
        let filter = condition.map { " AND \($0.0)" } ?? ""
        return try database.execute("UPDATE users SET \(assignments) WHERE id = ?\(filter)",
                                    values + [.text(id)] + (condition.map { [$0.1] } ?? [])) > 0
    }

    /// One transaction: the user row (its devices and sessions follow by cascade), every
    /// single-use token whose subject is the id, and every counter whose key ends in
    /// `:<id>`, found through the index on the key's last segment (`counterOwner`: user ids
    /// hold no `:`), compared exactly, not with `LIKE`, so ids holding `%`, `_` or `\` match
    /// only themselves (and case matters, as everywhere else). When there is no such user
    /// nothing is deleted.
    @discardableResult
    public func deleteUser(id: String) throws -> Bool {
        let owner = Self.counterOwner(database.dialect)
        return try database.transaction { connection in
            guard try connection.execute("DELETE FROM users WHERE id = ?", [.text(id)]) > 0 else { return false }
            try connection.execute("DELETE FROM single_use_tokens WHERE subject = ?", [.text(id)])
            try connection.execute("DELETE FROM counters WHERE \(owner) = ? AND key <> ?", [.text(id), .text(id)])
            return true
        }
    }

    /// A counter key's last `:`-separated segment (the whole key when it holds none), as the
    /// expression of migration 20's index. SQLite has no "last index of": right-trimming every
    /// character but `:` leaves the key up to its last `:`, which is then cut off the front.
    static func counterOwner(_ dialect: SQLDialect) -> String {
        switch dialect {
        case .sqlite: "replace(key, rtrim(key, replace(key, ':', '')), '')"
        case .postgresql: "reverse(split_part(reverse(key), ':', 1))"
        }
    }

    /// Every column but the id, in the order of `userColumns` after it.
    private static func userFields(_ user: User) -> [SQLValue] {
        [
            .text(user.status.rawValue), .date(user.createdAt), .optionalText(user.passwordHash),
            .optionalDate(user.passwordChangedAt), .optionalDate(user.lockedUntil), .integer(Int64(user.lockoutCount)),
            .optionalText(user.createdBy), .integer(user.passwordMustChange ? 1 : 0),
        ]
    }

    private static func user(from row: SQLRow) throws -> User {
        User(
            id: try row.string(0),
            status: try row.enumValue(User.Status.self, 1, column: "users.status"),
            createdAt: try row.date(2),
            passwordHash: try row.optionalString(3),
            passwordChangedAt: try row.optionalDate(4),
            lockedUntil: try row.optionalDate(5),
            lockoutCount: try row.int(6),
            createdBy: try row.optionalString(7),
            passwordMustChange: try row.int(8) != 0
        )
    }
}
