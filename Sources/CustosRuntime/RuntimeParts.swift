import CustosCore

/// What a caller may put in place of the live parts: tests move a clock of their own, share
/// one face engine between servers (its models are about 100 MB) and fail the audit store.
public struct RuntimeParts: Sendable {
    public var clock: any Clock
    /// Nil: the engine is loaded from the face models the configuration finds.
    public var faces: (any FaceAnalyzer)?
    /// Nil: the audit trail is kept in the application's store.
    public var auditStore: (any AuditStore)?

    public init(clock: any Clock = SystemClock(), faces: (any FaceAnalyzer)? = nil, auditStore: (any AuditStore)? = nil) {
        self.clock = clock
        self.faces = faces
        self.auditStore = auditStore
    }
}
