import CustosCore
import Foundation
import Testing

@testable import CustosStore

/// The SQL layer's pure parts, and PostgreSQL behaviour that needs no server.
@Suite("SQL layer")
struct SQLLayerTests {
    @Test("? placeholders become $n outside literals, identifiers and comments")
    func placeholders() {
        #expect(Placeholders.dollarNumbered("SELECT ?, ?") == "SELECT $1, $2")
        #expect(Placeholders.dollarNumbered("SELECT '?', \"a?\" , ? -- what?\n, ? /* ? */ , ?") ==
            "SELECT '?', \"a?\" , $1 -- what?\n, $2 /* ? */ , $3")
        #expect(Placeholders.dollarNumbered("SELECT 'it''s ?', ?") == "SELECT 'it''s ?', $1")
        #expect(Placeholders.dollarNumbered("SELECT 'unterminated ?") == "SELECT 'unterminated ?")
        #expect(Placeholders.dollarNumbered("é ? ü") == "é $1 ü")
        #expect(Placeholders.dollarNumbered("") == "")
    }

    @Test("dates are milliseconds, rounded, clamped instead of trapping")
    func time() {
        #expect(SQLTime.milliseconds(Date(timeIntervalSince1970: 1.2344)) == 1234)
        #expect(SQLTime.milliseconds(Date(timeIntervalSince1970: 1.2346)) == 1235)
        #expect(SQLTime.milliseconds(Date(timeIntervalSince1970: -1.2346)) == -1235)
        #expect(SQLTime.milliseconds(Date(timeIntervalSince1970: 1_700_000_000.001)) == 1_700_000_000_001)
        #expect(SQLTime.milliseconds(Date(timeIntervalSince1970: 1e300)) == Int64.max)
        #expect(SQLTime.milliseconds(Date(timeIntervalSince1970: -1e300)) == Int64.min)
        #expect(SQLTime.milliseconds(Date(timeIntervalSince1970: .infinity)) == Int64.max)
        #expect(SQLTime.milliseconds(Date(timeIntervalSince1970: .nan)) == 0)
        #expect(SQLTime.date(fromMilliseconds: 1_700_000_000_123) == Date(timeIntervalSince1970: 1_700_000_000.123))
    }

    @Test("row accessors convert or refuse")
    func rows() throws {
        let row = SQLRow([.integer(7), .text("12"), .blob(Data([1])), .null, .real(2.0), .real(2.5)])
        #expect(try row.int64(0) == 7)
        #expect(try row.int64(1) == 12)
        #expect(try row.data(2) == Data([1]))
        #expect(row.isNull(3))
        #expect(row.isNull(99))
        #expect(try row.int64(4) == 2)
        #expect(try row.double(0) == 7)
        expectStoreError(.failure) { try row.int64(5) }
        expectStoreError(.failure) { try row.int64(3) }
        expectStoreError(.failure) { try row.string(3) }
        expectStoreError(.failure) { try row.data(0) }
    }

    @Test("PostgreSQL binary encoding round-trips through the decoder")
    func postgresValues() throws {
        typealias V = PostgresValues
        for value in [SQLValue.integer(0), .integer(-1), .integer(Int64.max), .real(3.25), .text("ça"), .blob(Data()), .blob(Data([9, 0]))] {
            let parameter = V.parameter(value)
            let bytes = try #require(parameter.bytes)
            #expect(try bytes.withUnsafeBytes { try V.decode($0, oid: parameter.type) } == value)
        }
        #expect(V.parameter(.null).bytes == nil)
        #expect(try [UInt8]([0xFF, 0xFE]).withUnsafeBytes { try V.decode($0, oid: V.OID.int2) } == .integer(-2))
        #expect(try [UInt8]([0, 0, 1, 0]).withUnsafeBytes { try V.decode($0, oid: V.OID.int4) } == .integer(256))
        #expect(try [UInt8]([1]).withUnsafeBytes { try V.decode($0, oid: V.OID.bool) } == .integer(1))
        expectStoreError(.failure) { try [UInt8]([0, 1]).withUnsafeBytes { try V.decode($0, oid: V.OID.int8) } }
        expectStoreError(.failure) { try [UInt8]([0]).withUnsafeBytes { try V.decode($0, oid: 1700) } }
    }

    @Test("SQLite error codes map onto StoreError")
    func sqliteErrors() {
        #expect(StoreErrorKind(SQLiteConnection.error(code: 2067, message: "")) == .duplicate)  // CONSTRAINT_UNIQUE
        #expect(StoreErrorKind(SQLiteConnection.error(code: 1555, message: "")) == .duplicate)  // CONSTRAINT_PRIMARYKEY
        #expect(StoreErrorKind(SQLiteConnection.error(code: 787, message: "")) == .failure)  // CONSTRAINT_FOREIGNKEY
        #expect(StoreErrorKind(SQLiteConnection.error(code: 5, message: "")) == .unavailable)  // BUSY
        #expect(StoreErrorKind(SQLiteConnection.error(code: 517, message: "")) == .unavailable)  // BUSY_SNAPSHOT
        #expect(StoreErrorKind(SQLiteConnection.error(code: 6, message: "")) == .unavailable)  // LOCKED
        #expect(StoreErrorKind(SQLiteConnection.error(code: 1, message: "")) == .failure)  // ERROR
    }

    @Test("PostgreSQL SQLSTATEs map onto StoreError")
    func postgresErrors() {
        func kind(_ state: String?, lost: Bool = false) -> StoreErrorKind {
            StoreErrorKind(PostgresConnection.error(sqlState: state, message: "m", connectionLost: lost))
        }
        #expect(kind("23505") == .duplicate)
        #expect(kind("23503") == .failure)
        #expect(kind("42P01") == .failure)
        #expect(kind("57P01") == .unavailable)
        #expect(kind("57014") == .unavailable)
        #expect(kind("08006") == .unavailable)
        #expect(kind("53300") == .unavailable)
        #expect(kind("40001") == .unavailable)
        #expect(kind("23505", lost: true) == .unavailable)
        #expect(kind(nil) == .failure)
    }

    @Test("an unreachable PostgreSQL server is unavailable, quickly", .timeLimit(.minutes(1)))
    func postgresUnreachable() {
        let missingSocket = "postgresql://postgres@/custos?host=/nonexistent-custos-socket-dir&port=5999"
        expectStoreError(.unavailable) { try SQLStore.openPostgres(url: missingSocket) }
        expectStoreError(.unavailable) { try SQLStore.openPostgres(url: "postgresql://postgres@127.0.0.1:1/custos", migrate: false) }
        expectStoreError(.unavailable) { try SQLStore.open(databaseURL: "postgres://postgres@/custos?host=/nonexistent-custos-socket-dir", dataDirectory: "/tmp") }
    }

    @Test("a malformed PostgreSQL URL is a failure, not unavailability")
    func postgresBadURL() {
        expectStoreError(.failure) { try SQLStore.openPostgres(url: "postgresql://host/db?nosuchparameter=1") }
        expectStoreError(.failure) { try SQLStore.openPostgres(url: "postgresql://[::1/db") }
    }

    @Test("the redacted location hides the password")
    func redaction() throws {
        let database = try PostgresDatabase(url: "postgresql://alice:s3cret@db.example:6543/custos?sslmode=disable")
        defer { database.close() }
        #expect(database.location == "postgresql://alice@db.example:6543/custos")
        #expect(!database.location.contains("s3cret"))
    }

    @Test("the pool times out, and refuses after close")
    func pool() throws {
        final class Item {}
        let pool = BlockingPool<Item>(name: "test pool", capacity: 1, make: { Item() }, destroy: { _ in })
        let item = try pool.acquire(timeout: 1)
        expectStoreError(.unavailable) { try pool.acquire(timeout: 0.05) }
        pool.release(item)
        let again = try pool.acquire(timeout: 0.05)
        #expect(again === item)
        pool.release(again, discard: true)
        let fresh = try pool.acquire(timeout: 0.05)
        #expect(fresh !== item)
        pool.close()
        pool.release(fresh)
        expectStoreError(.unavailable) { try pool.acquire(timeout: 1) }
    }
}
