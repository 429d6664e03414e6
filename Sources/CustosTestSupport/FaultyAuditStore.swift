import CustosCore
import Foundation
import Synchronization

/// An audit store that fails its appends on demand: a test wires it in front of the real store
/// and shows that a state change whose audit event cannot be written does not happen either.
/// Reads always pass through.
public final class FaultyAuditStore: AuditStore {
    let base: any AuditStore
    private let failing = Atomic<Bool>(false)

    /// The error a failing append throws.
    public static let injected = StoreError.unavailable("injected audit append failure")

    public init(_ base: any AuditStore) {
        self.base = base
    }

    /// Whether appends fail from now on.
    public func failAppends(_ fail: Bool) {
        failing.store(fail, ordering: .sequentiallyConsistent)
    }

    public func appendAuditEvent(_ make: (_ head: AuditChainHead?) throws -> AuditEvent) throws -> AuditEvent {
        if failing.load(ordering: .sequentiallyConsistent) { throw Self.injected }
        return try base.appendAuditEvent(make)
    }

    public func rewriteAuditChain(pageSize: Int, _ rewrite: (AuditEvent) throws -> AuditEvent) throws -> Int {
        if failing.load(ordering: .sequentiallyConsistent) { throw Self.injected }
        return try base.rewriteAuditChain(pageSize: pageSize, rewrite)
    }

    public func auditEvents(afterSequence: Int64, limit: Int, userID: String?, transactionID: String?, actor: String?) throws -> [AuditEvent] {
        try base.auditEvents(afterSequence: afterSequence, limit: limit, userID: userID, transactionID: transactionID, actor: actor)
    }
}
