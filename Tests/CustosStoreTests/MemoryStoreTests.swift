import CustosCore
import Testing

/// The in-memory store the services' unit tests run on passes the conformance suite the SQL
/// stores pass, but for the checks of SQL's own machinery (migrations, rows written by hand).
@Suite("In-memory store")
struct MemoryStoreTests {
    @Test("conformance", arguments: ConformanceCheck.portable)
    func conformance(_ check: ConformanceCheck) throws {
        try check.run(.memory)
    }

    @Test("audit conformance", arguments: AuditCheck.portable)
    func auditConformance(_ check: AuditCheck) throws {
        try check.run(.memory)
    }
}
