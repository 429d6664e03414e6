import CustosCore
import CustosFakes
import Foundation
import CustosTestSupport
import Testing

@testable import CustosStore

/// The implementations the conformance suite runs against: the SQL ones, and the in-memory
/// one the services' unit tests use (only the checks that need no SQL, `portable`).
enum StoreKind: String, CaseIterable, Sendable {
    case sqlite
    case postgresql
    case memory
}

/// Every port a store implementation provides: what the conformance suite checks.
typealias ConformingStore = Store & IdentityStore & IDVTransactionStore & TemplateStore & FrameMemoryStore & DocumentStore
    & SigningKeyStore & SealedRecordStore & ServerMetadataStore & AuditStore & NotificationStore & WebhookOutboxStore & CIBAStore

/// Opens more stores on one store's data, as several server nodes would.
protocol StoreNodes: Sendable {
    func node() throws -> any ConformingStore
}

extension StoreHarness: StoreNodes {
    func node() throws -> any ConformingStore { try open() }
}

/// Handles on one in-memory store's data.
struct MemoryNodes: StoreNodes {
    let data = MemoryStore()
    func node() throws -> any ConformingStore { data.node() }
}

/// An isolated database for one test: a temporary SQLite file, or a fresh PostgreSQL schema.
/// `open` may be called several times: every store it returns shares the same data, like
/// several server processes (nodes) would.
final class StoreHarness: Sendable {
    let kind: StoreKind
    /// SQLite: the database file; PostgreSQL: the URL.
    let location: String
    /// SQLite: the temporary directory; PostgreSQL: the schema.
    let scope: String

    init(_ kind: StoreKind) throws {
        self.kind = kind
        switch kind {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("custos-store-tests-\(UUID().uuidString)").path
            scope = directory
            location = directory + "/custos.sqlite"
        case .memory:
            throw StoreError.failure("the in-memory store has no SQL harness")
        case .postgresql:
            guard let url = TestEnvironment.postgresURL else {
                throw StoreError.unavailable("CUSTOS_TEST_DATABASE_URL is not set")
            }
            location = url
            scope = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        }
    }

    func open(
        migrate: Bool = true,
        sqlite: SQLiteOptions = SQLiteOptions(),
        postgres: PostgresOptions = PostgresOptions()
    ) throws -> SQLStore {
        switch kind {
        case .sqlite:
            return try SQLStore.openSQLite(path: location, options: sqlite, migrate: migrate)
        case .postgresql:
            var options = postgres
            options.schema = scope
            return try SQLStore.openPostgres(url: location, options: options, migrate: migrate)
        case .memory:
            throw StoreError.failure("the in-memory store has no SQL harness")
        }
    }

    func tearDown() {
        switch kind {
        case .sqlite:
            try? FileManager.default.removeItem(atPath: scope)
        case .postgresql:
            guard let store = try? SQLStore.openPostgres(url: location, migrate: false) else { return }
            try? store.database.write { try $0.executeScript("DROP SCHEMA IF EXISTS \(scope) CASCADE") }
            store.close()
        case .memory:
            break
        }
    }
}

/// Runs `body` with a fresh harness and removes its data afterwards.
func withHarness<T>(_ kind: StoreKind, _ body: (StoreHarness) throws -> T) throws -> T {
    let harness = try StoreHarness(kind)
    defer { harness.tearDown() }
    return try body(harness)
}

/// Runs `body` with fresh data of `kind`, removed afterwards.
func withNodes<T>(_ kind: StoreKind, _ body: (any StoreNodes) throws -> T) throws -> T {
    if kind == .memory { return try body(MemoryNodes()) }
    return try withHarness(kind) { try body($0) }
}

/// Runs `body` with one store on fresh data of `kind`, closed and removed afterwards.
func withAnyStore<T>(_ kind: StoreKind, _ body: (any ConformingStore, any StoreNodes) throws -> T) throws -> T {
    try withNodes(kind) { nodes in
        let store = try nodes.node()
        defer { store.close() }
        return try body(store, nodes)
    }
}

/// Runs `body` with one store of a fresh harness, closed and removed afterwards.
func withStore<T>(_ kind: StoreKind, _ body: (SQLStore, StoreHarness) throws -> T) throws -> T {
    try withHarness(kind) { harness in
        let store = try harness.open()
        defer { store.close() }
        return try body(store, harness)
    }
}

/// The kind of `StoreError` a call is expected to throw.
enum StoreErrorKind: String, Sendable {
    case unavailable, duplicate, migrationFailed, failure

    init(_ error: StoreError) {
        switch error {
        case .unavailable: self = .unavailable
        case .duplicate: self = .duplicate
        case .migrationFailed: self = .migrationFailed
        case .failure: self = .failure
        }
    }
}

/// Expects `body` to throw a `StoreError` of `kind`.
func expectStoreError<T>(
    _ kind: StoreErrorKind,
    _ comment: Comment? = nil,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> T
) {
    do {
        let value = try body()
        Issue.record("expected StoreError.\(kind.rawValue), got a result: \(value)\(comment.map { " — \($0)" } ?? "")", sourceLocation: sourceLocation)
    } catch let error as StoreError {
        if StoreErrorKind(error) != kind {
            Issue.record("expected StoreError.\(kind.rawValue), got \(error)\(comment.map { " — \($0)" } ?? "")", sourceLocation: sourceLocation)
        }
    } catch {
        Issue.record("expected StoreError.\(kind.rawValue), got \(error)", sourceLocation: sourceLocation)
    }
}

/// A fixed, millisecond-aligned "now" so stored dates compare equal after the round trip.
let testNow = Date(timeIntervalSince1970: 1_700_000_000)

func digest(_ text: String) -> Data {
    // Not a real hash; any bytes will do for the store, including a zero byte.
    Data(text.utf8) + Data([0, 0xFF])
}
