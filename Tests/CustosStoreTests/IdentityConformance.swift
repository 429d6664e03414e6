import CustosCore
import CustosFakes
import Foundation
import Testing

@testable import CustosStore

/// Fixtures of the identity checks, and the checks on schema, round trips, closing and
/// concurrency. Dates are whole seconds from `testNow`, so they compare equal after the
/// millisecond round trip.
extension ConformanceCheck {
    static func user(_ id: String, status: User.Status = .active, createdIn seconds: TimeInterval = 0) -> User {
        User(id: id, status: status, createdAt: testNow.addingTimeInterval(seconds))
    }

    static func device(_ id: String, user: String, createdIn seconds: TimeInterval = 0) -> Device {
        Device(
            id: id, userID: user, name: "\(id)'s phone",
            publicKeyJWK: #"{"kty":"EC","crv":"P-256","x":"\#(id)-x","y":"\#(id)-y"}"#,
            keyThumbprint: "thumb-\(id)", createdAt: testNow.addingTimeInterval(seconds)
        )
    }

    /// A session whose token digest is `digest(id)`.
    static func session(_ id: String, user: String, device: String, createdIn seconds: TimeInterval = 0) -> Session {
        let created = testNow.addingTimeInterval(seconds)
        return Session(id: id, tokenDigest: digest(id), userID: user, deviceID: device,
                       createdAt: created, lastSeenAt: created, expiresAt: created.addingTimeInterval(3600))
    }

    /// An API key whose digest is `digest(id)`.
    static func apiKey(_ id: String, scope: APIKey.Scope = .rp, createdIn seconds: TimeInterval = 0) -> APIKey {
        APIKey(id: id, scope: scope, label: "key \(id)", digest: digest(id), createdAt: testNow.addingTimeInterval(seconds))
    }

    // MARK: Schema

    static func identitySchema(_ store: SQLStore, _: StoreHarness) throws {
        #expect(Migrations.all.prefix(2).map(\.version) == [1, 2])
        #expect(try store.schemaVersion() == SQLStore.latestSchemaVersion)
        let columns = [
            "users": "id, status, created_at, password_hash, password_changed_at, locked_until, lockout_count",
            "devices": "id, user_id, name, public_key_jwk, key_thumbprint, created_at, last_used_at, password_verified_at, revoked_at",
            "sessions": "id, token_digest, user_id, device_id, created_at, last_seen_at, expires_at",
            "api_keys": "id, scope, label, digest, created_at, revoked_at",
        ]
        for (table, list) in columns {
            let count = try store.database.read { try $0.queryFirst("SELECT COUNT(*) FROM \(table)")?.int(0) }
            #expect(count == 0, "\(table)")
            _ = try store.database.read { try $0.query("SELECT \(list) FROM \(table) WHERE 1 = 0") }
        }
    }

    /// A database at version 1 with data in it is brought to version 2; the data stays and
    /// the new stores work on it.
    static func identityUpgrade(_ harness: StoreHarness) throws {
        let store = try harness.open(migrate: false)
        defer { store.close() }
        let versionOne = Migrator(database: store.database, migrations: [Migrations.all[0]],
                                  schema: harness.kind == .postgresql ? harness.scope : nil)
        #expect(try versionOne.migrate(apply: true).applied == [1])
        #expect(try store.schemaVersion() == 1)
        try store.issue(token("old", subject: "alice"))
        #expect(try store.increment("attempts:alice", limit: 5, now: testNow) == 1)

        let latest = SQLStore.latestSchemaVersion
        #expect(try store.migrate(apply: false).pending == Array(2...latest))
        #expect(try store.migrate() == MigrationStatus(currentVersion: latest, latestVersion: latest, applied: Array(2...latest), pending: []))
        #expect(try store.peek(purpose: "activation", digest: digest("old"), now: testNow) != nil)
        #expect(try store.value("attempts:alice") == 1)
        try store.createUser(user("alice"))
        #expect(try store.deleteUser(id: "alice"))
        #expect(try store.peek(purpose: "activation", digest: digest("old"), now: testNow) == nil)
        #expect(try store.value("attempts:alice") == 0)
    }

    // MARK: Values, closing, concurrency

    static func identityValuesRoundTrip(_ store: any ConformingStore, _: any StoreNodes) throws {
        let odd = "ünïcødé 🔐 \"quoted\" 'single' ? $1 %_\\"
        let user = User(
            id: odd, status: .pendingActivation, createdAt: Date(timeIntervalSince1970: -86_400.5),
            passwordHash: "$argon2id$v=19$m=65536,t=3,p=4$" + odd, passwordChangedAt: .distantPast,
            lockedUntil: .distantFuture, lockoutCount: Int(Int32.max) + 7
        )
        try store.createUser(user)
        #expect(try store.user(id: odd) == user)
        let jwk = "{\"kty\":\"EC\",\"pad\":\"" + String(repeating: "x", count: 20_000) + "\"}"
        let device = Device(id: odd, userID: odd, name: "", publicKeyJWK: jwk, keyThumbprint: odd,
                            createdAt: testNow, lastUsedAt: .distantFuture, passwordVerifiedAt: .distantPast, revokedAt: nil)
        try store.addDevice(device)
        #expect(try store.device(id: odd) == device)
        let session = Session(id: odd, tokenDigest: Data([0, 0, 0xFF, 0]), userID: odd, deviceID: odd,
                              createdAt: testNow, lastSeenAt: testNow, expiresAt: .distantFuture)
        try store.createSession(session)
        #expect(try store.session(tokenDigest: Data([0, 0, 0xFF, 0])) == session)
        #expect(try store.session(tokenDigest: Data([0, 0, 0xFF])) == nil)
        // Empty strings and an empty digest are ordinary values.
        let empty = APIKey(id: "", scope: .admin, label: "", digest: Data(), createdAt: testNow)
        try store.createAPIKey(empty)
        #expect(try store.apiKey(digest: Data()) == empty)
        // Sub-millisecond precision is dropped, rounded to the nearest millisecond.
        try store.createUser(User(id: "fine", status: .active, createdAt: testNow.addingTimeInterval(10.0004)))
        #expect(try store.user(id: "fine")?.createdAt == testNow.addingTimeInterval(10))
    }

    static func identityCloseThenUnavailable(_ store: any ConformingStore, _ harness: any StoreNodes) throws {
        try store.createUser(user("alice"))
        store.close()
        expectStoreError(.unavailable) { try store.createUser(user("bob")) }
        expectStoreError(.unavailable) { try store.user(id: "alice") }
        expectStoreError(.unavailable) { try store.users(after: nil, limit: 1) }
        expectStoreError(.unavailable) { try store.updateUser(user("alice")) }
        expectStoreError(.unavailable) { try store.deleteUser(id: "alice") }
        expectStoreError(.unavailable) { try store.addDevice(device("d", user: "alice")) }
        expectStoreError(.unavailable) { try store.device(id: "d") }
        expectStoreError(.unavailable) { try store.devices(userID: "alice") }
        expectStoreError(.unavailable) { try store.revokeDevice(id: "d", at: testNow) }
        expectStoreError(.unavailable) { try store.touchDevice(id: "d", at: testNow, passwordVerified: true) }
        expectStoreError(.unavailable) { try store.createSession(session("s", user: "alice", device: "d")) }
        expectStoreError(.unavailable) { try store.session(tokenDigest: digest("s")) }
        expectStoreError(.unavailable) { try store.sessions(userID: "alice") }
        expectStoreError(.unavailable) { try store.touchSession(id: "s", at: testNow) }
        expectStoreError(.unavailable) { try store.deleteSession(id: "s") }
        expectStoreError(.unavailable) { try store.deleteSessions(userID: "alice") }
        expectStoreError(.unavailable) { try store.createAPIKey(apiKey("k")) }
        expectStoreError(.unavailable) { try store.apiKey(digest: digest("k")) }
        expectStoreError(.unavailable) { try store.apiKeys() }
        expectStoreError(.unavailable) { try store.revokeAPIKey(id: "k", at: testNow) }
        // Another store on the same database is unaffected.
        let other = try harness.node()
        defer { other.close() }
        #expect(try other.user(id: "alice") == user("alice"))
    }

    /// Two nodes, twenty threads, one user id: exactly one creation wins, the rest are
    /// duplicates, and the stored user is the winner's.
    static func concurrentCreateUser(_ harness: any StoreNodes) throws {
        let nodes = [try harness.node(), try harness.node()]
        defer { nodes.forEach { $0.close() } }
        let results = runConcurrently(20) { i in
            try nodes[i % nodes.count].createUser(user("raced", createdIn: Double(i)))
        }
        var winners: [Int] = []
        var duplicates = 0
        for (index, result) in results.enumerated() {
            switch result {
            case .success: winners.append(index)
            case .failure(let error as StoreError):
                if case .duplicate = error { duplicates += 1 } else { Issue.record("unexpected \(error)") }
            case .failure(let error): Issue.record("unexpected \(error)")
            }
        }
        #expect(winners.count == 1)
        #expect(duplicates == 19)
        let winner = try #require(winners.first)
        #expect(try nodes[0].user(id: "raced") == user("raced", createdIn: Double(winner)))
        #expect(try nodes[1].users(after: nil, limit: 10).count == 1)
    }
}
