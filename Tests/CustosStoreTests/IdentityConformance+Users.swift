import CustosAPI
import CustosCore
import Foundation
import Testing

@testable import CustosStore

// MARK: - UserStore checks

extension ConformanceCheck {
    static func userCreateGetUpdate(_ store: any ConformingStore, _: any StoreNodes) throws {
        let created = user("alice", status: .pendingActivation)
        try store.createUser(created)
        #expect(try store.user(id: "alice") == created)
        #expect(try store.user(id: "Alice") == nil)
        #expect(try store.user(id: "nobody") == nil)

        var changed = created
        changed.status = .active
        changed.passwordHash = "$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA"
        changed.passwordChangedAt = testNow.addingTimeInterval(10)
        changed.lockedUntil = testNow.addingTimeInterval(300)
        changed.lockoutCount = 3
        changed.createdAt = testNow.addingTimeInterval(-5)  // every field is replaced
        #expect(try store.updateUser(changed))
        #expect(try store.user(id: "alice") == changed)

        // Optional fields go back to nil.
        let cleared = User(id: "alice", status: .disabled, createdAt: testNow)
        #expect(try store.updateUser(cleared))
        #expect(try store.user(id: "alice") == cleared)
        // The same values again still count as found.
        #expect(try store.updateUser(cleared))
        // Updating a user that does not exist finds nothing and creates nothing.
        #expect(try store.updateUser(user("nobody")) == false)
        #expect(try store.user(id: "nobody") == nil)
    }

    /// A user's claims: none at first, replaced whole, kept through the user's own changes,
    /// cleared by nil, gone with the user; a user that does not exist gets none.
    static func userClaimsSetReadClear(_ store: any ConformingStore, _: any StoreNodes) throws {
        try store.createUser(user("claimed", status: .active))
        try store.createUser(user("other", status: .active))
        #expect(try store.userClaims(id: "claimed") == nil)
        let claims = UserClaims(name: "Zoë “Z” Ng", email: "zoe@example.com", emailVerified: false, phoneNumber: "+15550100",
                                address: UserClaims.Address(streetAddress: "1 Main St\nApt 2", country: "US"), updatedAt: 1_700_000_000)
        #expect(try store.setUserClaims(claims, id: "claimed"))
        #expect(try store.userClaims(id: "claimed") == claims)
        #expect(try store.userClaims(id: "other") == nil)
        #expect(try store.changeUser(id: "claimed", .lock(until: testNow.addingTimeInterval(60))))
        #expect(try store.userClaims(id: "claimed") == claims)
        #expect(try store.setUserClaims(UserClaims(nickname: "Z"), id: "claimed"))
        #expect(try store.userClaims(id: "claimed") == UserClaims(nickname: "Z"))
        #expect(try store.setUserClaims(nil, id: "claimed"))
        #expect(try store.userClaims(id: "claimed") == nil)
        #expect(try store.setUserClaims(claims, id: "nobody") == false)
        #expect(try store.userClaims(id: "nobody") == nil)
        #expect(try store.setUserClaims(claims, id: "claimed"))
        #expect(try store.deleteUser(id: "claimed"))
        try store.createUser(user("claimed", status: .pendingActivation))
        #expect(try store.userClaims(id: "claimed") == nil)
    }

    /// Each change writes only its fields: a change made from a stale copy cannot undo another.
    static func userFieldChanges(_ store: any ConformingStore, _: any StoreNodes) throws {
        try store.createUser(user("carol", status: .pendingActivation))
        // A disabled user cannot be activated.
        #expect(try store.changeUser(id: "carol", .disable))
        #expect(try store.changeUser(id: "carol", .activate(passwordHash: "h1", at: testNow)) == false)
        #expect(try store.user(id: "carol")?.passwordHash == nil)
        // Enabling a user without a password makes it pending again; enabling twice finds nothing to do.
        #expect(try store.changeUser(id: "carol", .enable))
        #expect(try store.user(id: "carol")?.status == .pendingActivation)
        #expect(try store.changeUser(id: "carol", .enable) == false)

        #expect(try store.changeUser(id: "carol", .activate(passwordHash: "h1", at: testNow)))
        // An administrator disables the user while a login fails: the lock keeps the status.
        #expect(try store.changeUser(id: "carol", .disable))
        #expect(try store.changeUser(id: "carol", .lock(until: testNow.addingTimeInterval(300))))
        #expect(try store.changeUser(id: "carol", .lock(until: testNow.addingTimeInterval(600))))
        var expected = User(id: "carol", status: .disabled, createdAt: testNow, passwordHash: "h1", passwordChangedAt: testNow,
                            lockedUntil: testNow.addingTimeInterval(600), lockoutCount: 2)
        #expect(try store.user(id: "carol") == expected)
        // A password change keeps the lock; unlocking keeps the lock count and the password.
        #expect(try store.changeUser(id: "carol", .password(hash: "h2", at: testNow.addingTimeInterval(5))))
        #expect(try store.changeUser(id: "carol", .unlock))
        #expect(try store.changeUser(id: "carol", .enable))
        expected.status = .active
        expected.passwordHash = "h2"
        expected.passwordChangedAt = testNow.addingTimeInterval(5)
        expected.lockedUntil = nil
        #expect(try store.user(id: "carol") == expected)
        #expect(try store.changeUser(id: "nobody", .unlock) == false)

        // An expired password stays expired across other changes, until a new password is set;
        // only an active user's password expires.
        #expect(try store.changeUser(id: "carol", .expirePassword))
        #expect(try store.changeUser(id: "carol", .lock(until: testNow.addingTimeInterval(900))))
        #expect(try store.user(id: "carol")?.passwordMustChange == true)
        #expect(try store.changeUser(id: "carol", .password(hash: "h3", at: testNow.addingTimeInterval(9))))
        #expect(try store.user(id: "carol")?.passwordMustChange == false)
        #expect(try store.changeUser(id: "carol", .disable))
        #expect(try store.changeUser(id: "carol", .expirePassword) == false)
        try store.createUser(user("dave", status: .pendingActivation))
        #expect(try store.changeUser(id: "dave", .expirePassword) == false)
        #expect(try store.user(id: "carol")?.passwordMustChange == false && store.user(id: "dave")?.passwordMustChange == false)
    }

    static func userDuplicate(_ store: any ConformingStore, _: any StoreNodes) throws {
        let first = user("bob", status: .active)
        try store.createUser(first)
        expectStoreError(.duplicate) { try store.createUser(user("bob", status: .disabled, createdIn: 5)) }
        #expect(try store.user(id: "bob") == first)
        // Ids match exactly: case and a trailing space make other users.
        try store.createUser(user("Bob"))
        try store.createUser(user("bob "))
        #expect(try store.users(after: nil, limit: 10).map(\.id) == ["Bob", "bob", "bob "])
    }

    static func usersPaging(_ store: any ConformingStore, _: any StoreNodes) throws {
        #expect(try store.users(after: nil, limit: 10) == [])
        let ids = ["zoë", "a%_\\b", "B", "a", "Z", "_x", "é", "a.b", "10", "9"]
        for (index, id) in ids.enumerated() {
            try store.createUser(user(id, createdIn: Double(index)))
        }
        // Byte order of the UTF-8 ids in both dialects, whatever the database's locale.
        let ordered = ["10", "9", "B", "Z", "_x", "a", "a%_\\b", "a.b", "zoë", "é"]
        #expect(try store.users(after: nil, limit: 100).map(\.id) == ordered)

        var pages: [[String]] = []
        var after: String?
        while true {
            let page = try store.users(after: after, limit: 3)
            guard let last = page.last else { break }
            pages.append(page.map(\.id))
            after = last.id
        }
        #expect(pages == [["10", "9", "B"], ["Z", "_x", "a"], ["a%_\\b", "a.b", "zoë"], ["é"]])

        // `after` is exclusive and need not be an existing id.
        #expect(try store.users(after: "a", limit: 1).map(\.id) == ["a%_\\b"])
        #expect(try store.users(after: "Y", limit: 2).map(\.id) == ["Z", "_x"])
        #expect(try store.users(after: "", limit: 1).map(\.id) == ["10"])
        #expect(try store.users(after: "é", limit: 5) == [])
        // Whole users come back.
        #expect(try store.users(after: "Z", limit: 1) == [user("_x", createdIn: 5)])
        // A limit of 0 or less returns nothing; a huge one everything.
        #expect(try store.users(after: nil, limit: 0) == [])
        #expect(try store.users(after: nil, limit: -1) == [])
        #expect(try store.users(after: "a", limit: Int.min) == [])
        #expect(try store.users(after: nil, limit: Int.max).count == ids.count)
    }

    static func userDeleteCascades(_ store: any ConformingStore, _: any StoreNodes) throws {
        for id in ["alice", "bob"] {
            try store.createUser(user(id))
            try store.addDevice(device("\(id)-phone", user: id))
            try store.createSession(session("\(id)-s1", user: id, device: "\(id)-phone"))
            try store.issue(token("\(id)-activation", purpose: "activation", subject: id))
            try store.issue(token("\(id)-nonce", purpose: "login_nonce", subject: id))
            #expect(try store.increment("attempts:\(id)", limit: 5, now: testNow) == 1)
            #expect(try store.increment("activation:\(id)", limit: 5, now: testNow) == 1)
        }
        try store.addDevice(device("alice-tablet", user: "alice"))
        try store.createSession(session("alice-s2", user: "alice", device: "alice-tablet"))
        // Only keys ending in ":alice" are hers.
        let gone = [":alice", "rate:ip:alice"]
        let kept = ["alice", "alice:", "alice:attempts", "attempts:xalice", "attempts:Alice", "attempts:alice ", "attempts:alice:x"]
        for key in gone + kept {
            _ = try store.increment(key, limit: 5, now: testNow)
        }
        try store.issue(token("alice2-token", subject: "alice2"))
        try store.issue(token("Alice-token", subject: "Alice"))

        #expect(try store.deleteUser(id: "alice"))
        #expect(try store.user(id: "alice") == nil)
        #expect(try store.device(id: "alice-phone") == nil)
        #expect(try store.device(id: "alice-tablet") == nil)
        #expect(try store.devices(userID: "alice") == [])
        #expect(try store.sessions(userID: "alice") == [])
        #expect(try store.session(tokenDigest: digest("alice-s1")) == nil)
        #expect(try store.session(tokenDigest: digest("alice-s2")) == nil)
        #expect(try store.peek(purpose: "activation", digest: digest("alice-activation"), now: testNow) == nil)
        #expect(try store.peek(purpose: "login_nonce", digest: digest("alice-nonce"), now: testNow) == nil)
        for key in ["attempts:alice", "activation:alice"] + gone {
            #expect(try store.value(key) == 0, "\(key)")
        }
        for key in kept {
            #expect(try store.value(key) == 1, "\(key)")
        }
        #expect(try store.peek(purpose: "activation", digest: digest("alice2-token"), now: testNow) != nil)
        #expect(try store.peek(purpose: "activation", digest: digest("Alice-token"), now: testNow) != nil)

        // Bob is untouched.
        #expect(try store.user(id: "bob") == user("bob"))
        #expect(try store.devices(userID: "bob").map(\.id) == ["bob-phone"])
        #expect(try store.sessions(userID: "bob").map(\.id) == ["bob-s1"])
        #expect(try store.peek(purpose: "activation", digest: digest("bob-activation"), now: testNow) != nil)
        #expect(try store.peek(purpose: "login_nonce", digest: digest("bob-nonce"), now: testNow) != nil)
        #expect(try store.value("attempts:bob") == 1)
        #expect(try store.value("activation:bob") == 1)

        // Deleting again, or a user that never existed, finds nothing and changes nothing.
        #expect(try store.deleteUser(id: "alice") == false)
        _ = try store.increment("attempts:ghost", limit: 5, now: testNow)
        try store.issue(token("ghost-token", subject: "ghost"))
        #expect(try store.deleteUser(id: "ghost") == false)
        #expect(try store.value("attempts:ghost") == 1)
        #expect(try store.peek(purpose: "activation", digest: digest("ghost-token"), now: testNow) != nil)
        // The id can be used again, from scratch.
        try store.createUser(user("alice"))
        #expect(try store.devices(userID: "alice") == [])
    }

    /// With `LIKE '%:' || id`, the id `a%_\b` would also take the counters of `aXYb`, `a%_b`
    /// (PostgreSQL, where `\` escapes), `aX\b` (SQLite, where it does not) and `A%_\b`
    /// (SQLite's LIKE ignores case). The suffix must be compared exactly; multi-byte ids too.
    static func userDeleteMatchesSuffixExactly(_ store: any ConformingStore, _: any StoreNodes) throws {
        let tricky = "a%_\\b"
        let lookalikes = ["aXYb", "a%_b", "aX\\b", "A%_\\b", "a%_\\B", "xa%_\\b", "a%_\\bb", "zoe", "Zoë"]
        for id in [tricky, "zoë"] + lookalikes {
            try store.createUser(user(id))
            try store.addDevice(device("device-\(id)", user: id))
            try store.issue(token("token-\(id)", subject: id))
            _ = try store.increment("attempts:\(id)", limit: 5, now: testNow)
            _ = try store.increment("rate:1.2.3.4:\(id)", limit: 5, now: testNow)
        }
        #expect(try store.deleteUser(id: tricky))
        #expect(try store.deleteUser(id: "zoë"))
        for id in [tricky, "zoë"] {
            #expect(try store.user(id: id) == nil)
            #expect(try store.device(id: "device-\(id)") == nil)
            #expect(try store.peek(purpose: "activation", digest: digest("token-\(id)"), now: testNow) == nil)
            #expect(try store.value("attempts:\(id)") == 0, "\(id)")
            #expect(try store.value("rate:1.2.3.4:\(id)") == 0, "\(id)")
        }
        for id in lookalikes {
            #expect(try store.user(id: id) != nil, "\(id)")
            #expect(try store.device(id: "device-\(id)") != nil, "\(id)")
            #expect(try store.peek(purpose: "activation", digest: digest("token-\(id)"), now: testNow) != nil, "\(id)")
            #expect(try store.value("attempts:\(id)") == 1, "\(id)")
            #expect(try store.value("rate:1.2.3.4:\(id)") == 1, "\(id)")
        }
    }

    /// A status or scope this program does not know (a newer version wrote it, or someone by
    /// hand) reads as `StoreError.failure`, never a crash; the row can still be fixed or
    /// deleted.
    static func unknownEnumValues(_ store: SQLStore, _: StoreHarness) throws {
        try store.createUser(user("good"))
        for (id, status) in [("odd", "frozen"), ("shouting", "ACTIVE"), ("blank", "")] {
            _ = try store.database.write {
                try $0.execute("INSERT INTO users (id, status, created_at, lockout_count) VALUES (?, ?, 0, 0)", [.text(id), .text(status)])
            }
            expectStoreError(.failure, "status \"\(status)\"") { try store.user(id: id) }
        }
        expectStoreError(.failure) { try store.users(after: nil, limit: 10) }
        // A page without the unreadable rows reads fine.
        #expect(try store.users(after: "blank", limit: 1) == [user("good")])
        #expect(try store.updateUser(user("odd", status: .disabled)))
        #expect(try store.user(id: "odd") == user("odd", status: .disabled))
        #expect(try store.deleteUser(id: "shouting"))

        try store.createAPIKey(apiKey("fine", createdIn: 10))
        _ = try store.database.write {
            try $0.execute("INSERT INTO api_keys (id, scope, label, digest, created_at) VALUES ('k', 'superuser', 'x', ?, 0)", [.blob(digest("k"))])
        }
        expectStoreError(.failure) { try store.apiKey(digest: digest("k")) }
        expectStoreError(.failure) { try store.apiKeys() }
        #expect(try store.apiKey(digest: digest("fine")) == apiKey("fine", createdIn: 10))
        #expect(try store.revokeAPIKey(id: "k", at: testNow))
    }
}
