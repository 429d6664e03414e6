import CustosCore
import Foundation
import Testing

@testable import CustosStore

// MARK: - DeviceStore checks

extension ConformanceCheck {
    static func deviceAddGetList(_ store: any ConformingStore, _: any StoreNodes) throws {
        try store.createUser(user("alice"))
        try store.createUser(user("bob"))
        #expect(try store.devices(userID: "alice") == [])
        let newest = device("d-newest", user: "alice", createdIn: 20)
        let oldest = device("d-oldest", user: "alice", createdIn: -20)
        var used = device("d-used", user: "alice")
        used.lastUsedAt = testNow.addingTimeInterval(5)
        used.passwordVerifiedAt = testNow.addingTimeInterval(4)
        var revoked = device("d-revoked", user: "alice", createdIn: 10)
        revoked.revokedAt = testNow.addingTimeInterval(15)
        // Same millisecond: id order.
        let twinB = device("twin-b", user: "alice", createdIn: 30)
        let twinA = device("twin-a", user: "alice", createdIn: 30)
        for added in [newest, oldest, used, revoked, twinB, twinA] {
            try store.addDevice(added)
        }
        try store.addDevice(device("d-bob", user: "bob"))

        #expect(try store.device(id: "d-used") == used)
        #expect(try store.device(id: "d-revoked") == revoked)
        #expect(try store.device(id: "d-revoked")?.isRevoked == true)
        #expect(try store.device(id: "missing") == nil)
        // Oldest first, revoked ones included.
        #expect(try store.devices(userID: "alice") == [oldest, used, revoked, newest, twinA, twinB])
        #expect(try store.devices(userID: "bob") == [device("d-bob", user: "bob")])
        #expect(try store.devices(userID: "nobody") == [])
        // A device needs an existing user (foreign key).
        expectStoreError(.failure) { try store.addDevice(device("orphan", user: "nobody")) }
        #expect(try store.device(id: "orphan") == nil)
    }

    static func deviceDuplicate(_ store: any ConformingStore, _: any StoreNodes) throws {
        try store.createUser(user("alice"))
        try store.createUser(user("bob"))
        let first = device("d1", user: "alice")
        try store.addDevice(first)
        var sameID = device("d1", user: "bob")
        sameID.keyThumbprint = "another key"
        expectStoreError(.duplicate, "same id") { try store.addDevice(sameID) }
        var sameKey = device("d2", user: "bob")
        sameKey.keyThumbprint = first.keyThumbprint
        expectStoreError(.duplicate, "same key thumbprint") { try store.addDevice(sameKey) }
        #expect(try store.device(id: "d1") == first)
        #expect(try store.device(id: "d2") == nil)
        // The key stays bound to its device after revocation (the row is kept).
        #expect(try store.revokeDevice(id: "d1", at: testNow))
        expectStoreError(.duplicate, "revoked device's thumbprint") { try store.addDevice(sameKey) }
        // Thumbprints match exactly.
        sameKey.keyThumbprint = first.keyThumbprint.uppercased()
        try store.addDevice(sameKey)
    }

    static func deviceRevoke(_ store: any ConformingStore, _: any StoreNodes) throws {
        try store.createUser(user("alice"))
        try store.addDevice(device("phone", user: "alice"))
        try store.addDevice(device("tablet", user: "alice", createdIn: 1))
        try store.createSession(session("s1", user: "alice", device: "phone"))
        try store.createSession(session("s2", user: "alice", device: "phone", createdIn: 1))
        try store.createSession(session("s3", user: "alice", device: "tablet", createdIn: 2))

        let at = testNow.addingTimeInterval(30)
        #expect(try store.revokeDevice(id: "phone", at: at))
        #expect(try store.device(id: "phone")?.revokedAt == at)
        // Its sessions are gone; the other device's stay.
        #expect(try store.session(tokenDigest: digest("s1")) == nil)
        #expect(try store.session(tokenDigest: digest("s2")) == nil)
        #expect(try store.sessions(userID: "alice").map(\.id) == ["s3"])
        // Already revoked: false, and the first revocation time stays.
        #expect(try store.revokeDevice(id: "phone", at: at.addingTimeInterval(60)) == false)
        #expect(try store.device(id: "phone")?.revokedAt == at)
        #expect(try store.revokeDevice(id: "missing", at: at) == false)
        // Still listed for the audit trail; the other device is untouched.
        #expect(try store.devices(userID: "alice").map(\.id) == ["phone", "tablet"])
        #expect(try store.device(id: "tablet") == device("tablet", user: "alice", createdIn: 1))
        // A device added as revoked cannot be revoked again.
        var added = device("old", user: "alice", createdIn: 2)
        added.revokedAt = testNow
        try store.addDevice(added)
        #expect(try store.revokeDevice(id: "old", at: at) == false)
    }

    static func deviceTouch(_ store: any ConformingStore, _: any StoreNodes) throws {
        try store.createUser(user("alice"))
        try store.addDevice(device("phone", user: "alice"))
        try store.addDevice(device("tablet", user: "alice", createdIn: 1))
        let first = testNow.addingTimeInterval(5)
        let second = testNow.addingTimeInterval(10)
        let third = testNow.addingTimeInterval(20)

        try store.touchDevice(id: "phone", at: first, passwordVerified: false)
        var expected = device("phone", user: "alice")
        expected.lastUsedAt = first
        #expect(try store.device(id: "phone") == expected)

        try store.touchDevice(id: "phone", at: second, passwordVerified: true)
        expected.lastUsedAt = second
        expected.passwordVerifiedAt = second
        #expect(try store.device(id: "phone") == expected)

        // Without the password, the last password login stays.
        try store.touchDevice(id: "phone", at: third, passwordVerified: false)
        expected.lastUsedAt = third
        #expect(try store.device(id: "phone") == expected)

        // Touching a missing device does nothing; the other device is untouched.
        try store.touchDevice(id: "missing", at: third, passwordVerified: true)
        #expect(try store.device(id: "missing") == nil)
        #expect(try store.device(id: "tablet") == device("tablet", user: "alice", createdIn: 1))
    }
}
