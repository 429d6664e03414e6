import CustosCore
import Foundation
import Testing

@testable import CustosStore

/// `atomically`: the calls of a block commit together or not at all, a statement that fails
/// inside it is undone alone, and an audit append joins the block.
extension ConformanceCheck {
    /// Until the block ends, another connection sees none of it; afterwards all of it.
    static func atomicCommitsTogether(_ harness: any StoreNodes) throws {
        let store = try harness.node()
        defer { store.close() }
        let observer = try harness.node()
        defer { observer.close() }
        try store.atomically {
            try store.issue(token("together"))
            _ = try store.increment("together", limit: 5, now: testNow)
            // Nested blocks join the outer one; the block reads its own writes.
            try store.atomically { _ = try store.increment("together", limit: 5, now: testNow) }
            #expect(try store.value("together") == 2)
            #expect(try observer.peek(purpose: "activation", digest: digest("together"), now: testNow) == nil)
        }
        #expect(try observer.value("together") == 2)
        #expect(try observer.peek(purpose: "activation", digest: digest("together"), now: testNow) != nil)
    }

    static func atomicRollsBackTogether(_ store: any ConformingStore, _: any StoreNodes) throws {
        struct Abandoned: Error {}
        _ = try store.increment("kept", limit: 5, now: testNow)
        #expect(throws: Abandoned.self) {
            try store.atomically {
                try store.issue(token("undone"))
                _ = try store.increment("kept", limit: 5, now: testNow)
                try store.decrement("kept")
                try store.decrement("kept")
                throw Abandoned()
            }
        }
        #expect(try store.peek(purpose: "activation", digest: digest("undone"), now: testNow) == nil)
        #expect(try store.value("kept") == 1)
        // The store goes on working.
        try store.atomically { try store.issue(token("after")) }
        #expect(try store.peek(purpose: "activation", digest: digest("after"), now: testNow) != nil)
    }

    /// A duplicate the caller expected fails alone (on PostgreSQL it would otherwise abort the
    /// whole transaction); what came before and after it commits.
    static func atomicSurvivesAFailedStatement(_ store: any ConformingStore, _: any StoreNodes) throws {
        try store.issue(token("existing"))
        try store.atomically {
            try store.issue(token("before"))
            expectStoreError(.duplicate) { try store.issue(token("existing")) }
            try store.issue(token("after"))
        }
        for name in ["before", "after"] {
            #expect(try store.peek(purpose: "activation", digest: digest(name), now: testNow) != nil)
        }
    }

    /// An audit event appended in a block is rolled back with it, and the chain goes on from
    /// the last committed event.
    static func atomicAuditAppendJoins(_ store: any ConformingStore, _: any StoreNodes) throws {
        struct Abandoned: Error {}
        let trail = AuditCheck.trail(store)
        let first = try trail.record(.lockout, userID: "alice")
        #expect(throws: Abandoned.self) {
            try store.atomically {
                try store.issue(token("with-event"))
                try trail.record(.optOut, userID: "alice")
                throw Abandoned()
            }
        }
        #expect(try trail.list(userID: nil, transactionID: nil) == [first])
        #expect(try store.peek(purpose: "activation", digest: digest("with-event"), now: testNow) == nil)
        try store.atomically {
            try store.issue(token("with-event"))
            try trail.record(.optOut, userID: "alice")
        }
        #expect(try trail.verify().checked == 2)
    }
}
