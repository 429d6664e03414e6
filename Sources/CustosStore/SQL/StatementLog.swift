import Synchronization

/// The distinct statements the stores ran on behalf of one task, with the values of each one's
/// first run: what the query-plan test (`QueryPlanTests`) explains on each database, to prove
/// that no statement scans a table that grows with users or history. A task records while it
/// runs inside `StatementLog.$current.withValue(log) { … }`; otherwise recording costs one
/// task-local read per statement.
final class StatementLog: Sendable {
    @TaskLocal static var current: StatementLog?

    private let statements = Mutex<[String: [SQLValue]]>([:])

    /// Each statement with the values it first ran with.
    var recorded: [String: [SQLValue]] { statements.withLock { $0 } }

    static func record(_ sql: String, _ binds: [SQLValue]) {
        guard let log = current else { return }
        log.statements.withLock { if $0[sql] == nil { $0[sql] = binds } }
    }
}
