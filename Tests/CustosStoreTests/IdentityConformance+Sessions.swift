import CustosCore
import Foundation
import Testing

@testable import CustosStore

// MARK: - SessionStore and APIKeyStore checks

extension ConformanceCheck {
    static func sessionLifecycle(_ store: any ConformingStore, _: any StoreNodes) throws {
        for id in ["alice", "bob"] {
            try store.createUser(user(id))
            try store.addDevice(device("\(id)-phone", user: id))
        }
        #expect(try store.sessions(userID: "alice") == [])
        let old = session("s-old", user: "alice", device: "alice-phone", createdIn: -60)
        let mid = session("s-mid", user: "alice", device: "alice-phone")
        let new = session("s-new", user: "alice", device: "alice-phone", createdIn: 60)
        // Long expired, and still found: expiry is the caller's decision.
        let expired = session("s-expired", user: "alice", device: "alice-phone", createdIn: -7200)
        // Same millisecond: descending id order.
        let twinA = session("twin-a", user: "alice", device: "alice-phone", createdIn: 90)
        let twinB = session("twin-b", user: "alice", device: "alice-phone", createdIn: 90)
        for created in [mid, old, expired, new, twinA, twinB, session("s-bob", user: "bob", device: "bob-phone")] {
            try store.createSession(created)
        }

        #expect(try store.session(tokenDigest: digest("s-mid")) == mid)
        #expect(try store.session(tokenDigest: digest("s-expired")) == expired)
        #expect(try store.session(tokenDigest: digest("s-mid").dropLast()) == nil)
        #expect(try store.session(tokenDigest: Data()) == nil)
        #expect(try store.sessions(userID: "alice") == [twinB, twinA, new, mid, old, expired])
        #expect(try store.sessions(userID: "nobody") == [])

        let seen = testNow.addingTimeInterval(30)
        try store.touchSession(id: "s-mid", at: seen)
        var touched = mid
        touched.lastSeenAt = seen
        #expect(try store.session(tokenDigest: digest("s-mid")) == touched)
        #expect(try store.session(tokenDigest: digest("s-old")) == old)
        try store.touchSession(id: "missing", at: seen)

        #expect(try store.deleteSession(id: "s-mid"))
        #expect(try store.deleteSession(id: "s-mid") == false)
        #expect(try store.deleteSession(id: "missing") == false)
        #expect(try store.session(tokenDigest: digest("s-mid")) == nil)

        #expect(try store.deleteSessions(userID: "alice") == 5)
        #expect(try store.deleteSessions(userID: "alice") == 0)
        #expect(try store.deleteSessions(userID: "nobody") == 0)
        #expect(try store.sessions(userID: "alice") == [])
        #expect(try store.sessions(userID: "bob").map(\.id) == ["s-bob"])
        // Devices stay when their sessions go.
        #expect(try store.device(id: "alice-phone") != nil)

        // A session needs an existing user and device (foreign keys).
        expectStoreError(.failure) { try store.createSession(session("x1", user: "alice", device: "no-device")) }
        expectStoreError(.failure) { try store.createSession(session("x2", user: "nobody", device: "alice-phone")) }
    }

    static func sessionDuplicate(_ store: any ConformingStore, _: any StoreNodes) throws {
        try store.createUser(user("alice"))
        try store.addDevice(device("phone", user: "alice"))
        let first = session("s1", user: "alice", device: "phone")
        try store.createSession(first)
        var sameID = session("s1", user: "alice", device: "phone", createdIn: 5)
        sameID.tokenDigest = digest("another token")
        expectStoreError(.duplicate, "same id") { try store.createSession(sameID) }
        var sameDigest = session("s2", user: "alice", device: "phone", createdIn: 5)
        sameDigest.tokenDigest = first.tokenDigest
        expectStoreError(.duplicate, "same token digest") { try store.createSession(sameDigest) }
        #expect(try store.sessions(userID: "alice") == [first])
    }

    static func apiKeyLifecycle(_ store: any ConformingStore, _: any StoreNodes) throws {
        #expect(try store.apiKeys() == [])
        let admin = apiKey("admin-1", scope: .admin, createdIn: -10)
        let rp = apiKey("rp-1")
        let later = apiKey("rp-2", createdIn: 10)
        var preRevoked = apiKey("rp-old", createdIn: 5)
        preRevoked.revokedAt = testNow.addingTimeInterval(6)
        for key in [later, rp, preRevoked, admin] {
            try store.createAPIKey(key)
        }
        #expect(try store.apiKey(digest: digest("rp-1")) == rp)
        #expect(try store.apiKey(digest: digest("admin-1")) == admin)
        #expect(try store.apiKey(digest: digest("unknown")) == nil)
        #expect(try store.apiKeys() == [admin, rp, preRevoked, later])

        let at = testNow.addingTimeInterval(20)
        #expect(try store.revokeAPIKey(id: "rp-1", at: at))
        // A revoked key is still found (refusing it is the caller's decision), and listed.
        #expect(try store.apiKey(digest: digest("rp-1"))?.revokedAt == at)
        #expect(try store.revokeAPIKey(id: "rp-1", at: at.addingTimeInterval(5)) == false)
        #expect(try store.apiKey(digest: digest("rp-1"))?.revokedAt == at)
        #expect(try store.revokeAPIKey(id: "rp-old", at: at) == false)
        #expect(try store.revokeAPIKey(id: "missing", at: at) == false)
        #expect(try store.apiKeys().map(\.id) == ["admin-1", "rp-1", "rp-old", "rp-2"])
        #expect(try store.apiKey(digest: digest("rp-2"))?.revokedAt == nil)
    }

    static func apiKeyDuplicate(_ store: any ConformingStore, _: any StoreNodes) throws {
        let first = apiKey("k1", scope: .admin)
        try store.createAPIKey(first)
        var sameID = apiKey("k1", createdIn: 5)
        sameID.digest = digest("other")
        expectStoreError(.duplicate, "same id") { try store.createAPIKey(sameID) }
        var sameDigest = apiKey("k2", createdIn: 5)
        sameDigest.digest = first.digest
        expectStoreError(.duplicate, "same digest") { try store.createAPIKey(sameDigest) }
        #expect(try store.apiKeys() == [first])
    }
}
