import CustosCore
import CustosFakes
import Foundation
import Testing

@testable import CustosStore

/// The behaviour every `Store` implementation must show, written once and run against
/// SQLite (`SQLiteStoreTests`) and PostgreSQL (`PostgresStoreTests`).
enum ConformanceCheck: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case issuePeekConsume
    case consumedOnlyOnce
    case expiredNotConsumable
    case wrongPurposeOrDigestNotConsumable
    case duplicateIssue
    case revokeAll
    case purgeExpired
    case valuesRoundTrip
    case emptyStringsAreOrdinaryValues
    case incrementToLimit
    case counterValueAndReset
    case counterLeases
    case concurrentLeases
    case ping
    case closeThenUnavailable
    case migrationsIdempotent
    case migrationsFromEmptyDatabase
    case refusesNewerSchema
    case concurrentConsumeHasOneWinner
    case concurrentIncrementStopsAtLimit
    case concurrentDuplicateIssue
    case concurrentMigrate
    // Identity stores (migration 2); implemented in IdentityConformance*.swift.
    case identitySchemaIsVersion2
    case identityUpgradeFromVersion1
    case userCreateGetUpdate
    case userFieldChanges
    case userDuplicate
    case usersPaging
    case userDeleteCascades
    case userClaimsSetReadClear
    case userDeleteMatchesSuffixExactly
    case unknownEnumValuesAreFailures
    case deviceAddGetList
    case deviceDuplicate
    case deviceRevoke
    case deviceTouch
    case sessionLifecycle
    case sessionDuplicate
    case apiKeyLifecycle
    case apiKeyDuplicate
    case identityValuesRoundTrip
    case identityCloseThenUnavailable
    case concurrentCreateUser
    case idvTransactionLifecycle
    case templateSaveReplaceDelete
    case templateKeyRotation
    case frameMemories
    case openTransactionsAndGrants
    case documentImages
    // Atomic blocks; implemented in AtomicConformance.swift.
    case atomicCommitsTogether
    case atomicRollsBackTogether
    case atomicSurvivesAFailedStatement
    case atomicAuditAppendJoins
    case sealedRecordsPageAndReplace
    case metadataReplace
    // Notifications, the webhook outbox, CIBA; implemented in NotificationConformance.swift.
    case notificationLifecycle
    case webhookOutboxLeases
    case concurrentCloseHasOneWinner
    case concurrentClaimsLeaseEachRowOnce
    case webhookClaimBounds
    case cibaPollingAndIssue

    var testDescription: String { rawValue }

    /// Checks of the SQL stores' own machinery (migrations, schema, rows written by hand),
    /// which a store without SQL has nothing to show for.
    static let sqlOnly: Set<ConformanceCheck> = [
        .migrationsIdempotent, .migrationsFromEmptyDatabase, .refusesNewerSchema, .concurrentMigrate, .identitySchemaIsVersion2,
        .identityUpgradeFromVersion1, .unknownEnumValuesAreFailures,
    ]

    /// What every store implementation must show, SQL or not.
    static var portable: [ConformanceCheck] { allCases.filter { !sqlOnly.contains($0) } }

    func run(_ kind: StoreKind) throws {
        switch self {
        case .idvTransactionLifecycle: try withAnyStore(kind, Self.idvTransactionLifecycle)
        case .templateSaveReplaceDelete: try withAnyStore(kind, Self.templateSaveReplaceDelete)
        case .templateKeyRotation: try withAnyStore(kind, Self.templateKeyRotation)
        case .frameMemories: try withAnyStore(kind, Self.frameMemories)
        case .openTransactionsAndGrants: try withAnyStore(kind, Self.openTransactionsAndGrants)
        case .documentImages: try withAnyStore(kind, Self.documentImages)
        case .atomicCommitsTogether: try withNodes(kind, Self.atomicCommitsTogether)
        case .atomicRollsBackTogether: try withAnyStore(kind, Self.atomicRollsBackTogether)
        case .atomicSurvivesAFailedStatement: try withAnyStore(kind, Self.atomicSurvivesAFailedStatement)
        case .atomicAuditAppendJoins: try withAnyStore(kind, Self.atomicAuditAppendJoins)
        case .sealedRecordsPageAndReplace: try withAnyStore(kind, Self.sealedRecordsPageAndReplace)
        case .metadataReplace: try withAnyStore(kind, Self.metadataReplace)
        case .notificationLifecycle: try withAnyStore(kind, Self.notificationLifecycle)
        case .webhookOutboxLeases: try withAnyStore(kind, Self.webhookOutboxLeases)
        case .concurrentCloseHasOneWinner: try withNodes(kind, Self.concurrentCloseHasOneWinner)
        case .concurrentClaimsLeaseEachRowOnce: try withNodes(kind, Self.concurrentClaimsLeaseEachRowOnce)
        case .webhookClaimBounds: try withAnyStore(kind, Self.webhookClaimBounds)
        case .cibaPollingAndIssue: try withAnyStore(kind, Self.cibaPollingAndIssue)
        case .issuePeekConsume: try withAnyStore(kind, Self.issuePeekConsume)
        case .consumedOnlyOnce: try withAnyStore(kind, Self.consumedOnlyOnce)
        case .expiredNotConsumable: try withAnyStore(kind, Self.expiredNotConsumable)
        case .wrongPurposeOrDigestNotConsumable: try withAnyStore(kind, Self.wrongPurposeOrDigest)
        case .duplicateIssue: try withAnyStore(kind, Self.duplicateIssue)
        case .revokeAll: try withAnyStore(kind, Self.revokeAll)
        case .purgeExpired: try withAnyStore(kind, Self.purgeExpired)
        case .valuesRoundTrip: try withAnyStore(kind, Self.valuesRoundTrip)
        case .emptyStringsAreOrdinaryValues: try withAnyStore(kind, Self.emptyStrings)
        case .incrementToLimit: try withAnyStore(kind, Self.incrementToLimit)
        case .counterValueAndReset: try withAnyStore(kind, Self.counterValueAndReset)
        case .counterLeases: try withAnyStore(kind, Self.counterLeases)
        case .concurrentLeases: try withNodes(kind, Self.concurrentLeases)
        case .ping: try withAnyStore(kind) { store, _ in try store.ping() }
        case .closeThenUnavailable: try withAnyStore(kind, Self.closeThenUnavailable)
        case .migrationsIdempotent: try withStore(kind, Self.migrationsIdempotent)
        case .migrationsFromEmptyDatabase: try withHarness(kind, Self.migrationsFromEmptyDatabase)
        case .refusesNewerSchema: try withStore(kind, Self.refusesNewerSchema)
        case .concurrentConsumeHasOneWinner: try withNodes(kind, Self.concurrentConsume)
        case .concurrentIncrementStopsAtLimit: try withNodes(kind, Self.concurrentIncrement)
        case .concurrentDuplicateIssue: try withAnyStore(kind, Self.concurrentDuplicateIssue)
        case .concurrentMigrate: try withHarness(kind, Self.concurrentMigrate)
        case .identitySchemaIsVersion2: try withStore(kind, Self.identitySchema)
        case .identityUpgradeFromVersion1: try withHarness(kind, Self.identityUpgrade)
        case .userCreateGetUpdate: try withAnyStore(kind, Self.userCreateGetUpdate)
        case .userFieldChanges: try withAnyStore(kind, Self.userFieldChanges)
        case .userDuplicate: try withAnyStore(kind, Self.userDuplicate)
        case .usersPaging: try withAnyStore(kind, Self.usersPaging)
        case .userDeleteCascades: try withAnyStore(kind, Self.userDeleteCascades)
        case .userClaimsSetReadClear: try withAnyStore(kind, Self.userClaimsSetReadClear)
        case .userDeleteMatchesSuffixExactly: try withAnyStore(kind, Self.userDeleteMatchesSuffixExactly)
        case .unknownEnumValuesAreFailures: try withStore(kind, Self.unknownEnumValues)
        case .deviceAddGetList: try withAnyStore(kind, Self.deviceAddGetList)
        case .deviceDuplicate: try withAnyStore(kind, Self.deviceDuplicate)
        case .deviceRevoke: try withAnyStore(kind, Self.deviceRevoke)
        case .deviceTouch: try withAnyStore(kind, Self.deviceTouch)
        case .sessionLifecycle: try withAnyStore(kind, Self.sessionLifecycle)
        case .sessionDuplicate: try withAnyStore(kind, Self.sessionDuplicate)
        case .apiKeyLifecycle: try withAnyStore(kind, Self.apiKeyLifecycle)
        case .apiKeyDuplicate: try withAnyStore(kind, Self.apiKeyDuplicate)
        case .identityValuesRoundTrip: try withAnyStore(kind, Self.identityValuesRoundTrip)
        case .identityCloseThenUnavailable: try withAnyStore(kind, Self.identityCloseThenUnavailable)
        case .concurrentCreateUser: try withNodes(kind, Self.concurrentCreateUser)
        }
    }

    // MARK: Single-use tokens

    static func token(_ name: String, purpose: String = "activation", subject: String = "user-1", expiresIn seconds: TimeInterval = 60) -> SingleUseToken {
        SingleUseToken(
            purpose: purpose, digest: digest(name), subject: subject,
            payload: Data("payload of \(name)".utf8), expiresAt: testNow.addingTimeInterval(seconds)
        )
    }

    static func issuePeekConsume(_ store: any ConformingStore, _: any StoreNodes) throws {
        let issued = token("a")
        try store.issue(issued)
        #expect(try store.peek(purpose: issued.purpose, digest: issued.digest, now: testNow) == issued)
        // Peeking does not consume.
        #expect(try store.peek(purpose: issued.purpose, digest: issued.digest, now: testNow) == issued)
        #expect(try store.consume(purpose: issued.purpose, digest: issued.digest, now: testNow) == issued)
        #expect(try store.peek(purpose: issued.purpose, digest: issued.digest, now: testNow) == nil)
    }

    static func consumedOnlyOnce(_ store: any ConformingStore, _: any StoreNodes) throws {
        let issued = token("once")
        try store.issue(issued)
        #expect(try store.consume(purpose: issued.purpose, digest: issued.digest, now: testNow) == issued)
        #expect(try store.consume(purpose: issued.purpose, digest: issued.digest, now: testNow) == nil)
        // Once consumed, the same token may be issued again (a new secret would be better, but
        // the store does not forbid it).
        try store.issue(issued)
        #expect(try store.consume(purpose: issued.purpose, digest: issued.digest, now: testNow) == issued)
    }

    static func expiredNotConsumable(_ store: any ConformingStore, _: any StoreNodes) throws {
        let past = token("past", expiresIn: -1)
        let boundary = token("boundary", expiresIn: 0)
        var justAlive = token("alive")
        justAlive.expiresAt = Date(timeIntervalSince1970: 1_700_000_000_001 / 1000)  // testNow + 1 ms
        for t in [past, boundary, justAlive] { try store.issue(t) }
        #expect(try store.peek(purpose: past.purpose, digest: past.digest, now: testNow) == nil)
        #expect(try store.consume(purpose: past.purpose, digest: past.digest, now: testNow) == nil)
        // A token expires at `expiresAt`: consumable only while expiresAt > now.
        #expect(try store.consume(purpose: boundary.purpose, digest: boundary.digest, now: testNow) == nil)
        #expect(try store.consume(purpose: justAlive.purpose, digest: justAlive.digest, now: testNow) == justAlive)
        // Expired tokens stay until purged, and still block a duplicate issue.
        expectStoreError(.duplicate) { try store.issue(past) }
        #expect(try store.purgeExpired(now: testNow) == 2)
        // A token valid at issue time is not consumable after its expiry.
        let later = token("later", expiresIn: 10)
        try store.issue(later)
        #expect(try store.consume(purpose: later.purpose, digest: later.digest, now: testNow.addingTimeInterval(11)) == nil)
        #expect(try store.consume(purpose: later.purpose, digest: later.digest, now: testNow) == later)
    }

    static func wrongPurposeOrDigest(_ store: any ConformingStore, _: any StoreNodes) throws {
        let activation = token("shared", purpose: "activation")
        let nonce = token("shared", purpose: "login_nonce", subject: "user-2")
        // Same digest, different purposes: no collision.
        try store.issue(activation)
        try store.issue(nonce)
        #expect(try store.consume(purpose: "authorization_code", digest: activation.digest, now: testNow) == nil)
        #expect(try store.consume(purpose: "activation", digest: digest("other"), now: testNow) == nil)
        #expect(try store.consume(purpose: "activation", digest: activation.digest.dropLast(), now: testNow) == nil)
        #expect(try store.consume(purpose: "Activation", digest: activation.digest, now: testNow) == nil)
        #expect(try store.consume(purpose: "activation", digest: activation.digest, now: testNow) == activation)
        #expect(try store.consume(purpose: "login_nonce", digest: nonce.digest, now: testNow) == nonce)
    }

    static func duplicateIssue(_ store: any ConformingStore, _: any StoreNodes) throws {
        let first = token("dup", subject: "user-1")
        try store.issue(first)
        var second = first
        second.subject = "user-2"
        second.payload = Data("another".utf8)
        expectStoreError(.duplicate) { try store.issue(second) }
        // The first stays intact.
        #expect(try store.peek(purpose: first.purpose, digest: first.digest, now: testNow) == first)
    }

    static func revokeAll(_ store: any ConformingStore, _: any StoreNodes) throws {
        for i in 0..<3 { try store.issue(token("s\(i)", purpose: "login_nonce", subject: "alice")) }
        try store.issue(token("t0", purpose: "login_nonce", subject: "bob"))
        try store.issue(token("s-other-purpose", purpose: "activation", subject: "alice"))
        try store.issue(token("s-expired", purpose: "login_nonce", subject: "alice", expiresIn: -5))
        #expect(try store.revokeAll(purpose: "login_nonce", subject: "alice") == 4)
        #expect(try store.revokeAll(purpose: "login_nonce", subject: "alice") == 0)
        #expect(try store.peek(purpose: "login_nonce", digest: digest("s0"), now: testNow) == nil)
        #expect(try store.peek(purpose: "login_nonce", digest: digest("t0"), now: testNow) != nil)
        #expect(try store.peek(purpose: "activation", digest: digest("s-other-purpose"), now: testNow) != nil)
        #expect(try store.revokeAll(purpose: "login_nonce", subject: "nobody") == 0)
    }

    static func purgeExpired(_ store: any ConformingStore, _: any StoreNodes) throws {
        #expect(try store.purgeExpired(now: testNow) == 0)
        try store.issue(token("old1", expiresIn: -60))
        try store.issue(token("old2", purpose: "login_nonce", expiresIn: -1))
        try store.issue(token("live", expiresIn: 60))
        #expect(try store.purgeExpired(now: testNow) == 2)
        #expect(try store.purgeExpired(now: testNow) == 0)
        #expect(try store.peek(purpose: "activation", digest: digest("live"), now: testNow) != nil)
        // The expired ones are gone for good: issuing them again works.
        try store.issue(token("old1", expiresIn: -60))
        #expect(try store.purgeExpired(now: testNow.addingTimeInterval(3600)) == 2)
    }

    static func valuesRoundTrip(_ store: any ConformingStore, _: any StoreNodes) throws {
        var big = [UInt8](repeating: 0, count: 70_000)
        for i in big.indices { big[i] = UInt8(truncatingIfNeeded: i &* 31 &+ 7) }
        let tokens = [
            SingleUseToken(purpose: "p", digest: Data([0, 0, 0]), subject: "ünïcødé 🔐 \"quoted\" 'single' ? $1",
                           payload: Data(), expiresAt: testNow.addingTimeInterval(1)),
            SingleUseToken(purpose: "p", digest: Data(repeating: 0xFF, count: 32), subject: "s",
                           payload: Data(big), expiresAt: Date.distantFuture),
        ]
        for t in tokens { try store.issue(t) }
        for t in tokens {
            #expect(try store.peek(purpose: t.purpose, digest: t.digest, now: testNow) == t)
            #expect(try store.consume(purpose: t.purpose, digest: t.digest, now: testNow) == t)
        }
        // Sub-millisecond precision is dropped (rounded to the millisecond); a far date does not trap.
        let fine = SingleUseToken(purpose: "p", digest: Data([1]), subject: "s",
                                  expiresAt: testNow.addingTimeInterval(10.0004))
        try store.issue(fine)
        let back = try #require(try store.consume(purpose: "p", digest: Data([1]), now: testNow))
        #expect(back.expiresAt == testNow.addingTimeInterval(10))
        let forever = SingleUseToken(purpose: "p", digest: Data([2]), subject: "s",
                                     expiresAt: Date(timeIntervalSince1970: 1e300))
        try store.issue(forever)
        #expect(try store.consume(purpose: "p", digest: Data([2]), now: testNow) != nil)
    }

    /// Empty strings and empty digests are ordinary values, matched exactly.
    static func emptyStrings(_ store: any ConformingStore, _: any StoreNodes) throws {
        let empty = SingleUseToken(purpose: "", digest: Data(), subject: "", expiresAt: testNow.addingTimeInterval(5))
        try store.issue(empty)
        expectStoreError(.duplicate) { try store.issue(empty) }
        #expect(try store.peek(purpose: "", digest: Data(), now: testNow) == empty)
        #expect(try store.peek(purpose: " ", digest: Data(), now: testNow) == nil)
        #expect(try store.revokeAll(purpose: "", subject: "") == 1)
        #expect(try store.increment("", limit: 2, now: testNow) == 1)
        #expect(try store.value("") == 1)
        #expect(try store.value(" ") == 0)
        try store.reset("")
        #expect(try store.value("") == 0)
    }

    // MARK: Counters

    static func incrementToLimit(_ store: any ConformingStore, _: any StoreNodes) throws {
        for expected in Int64(1)...3 {
            #expect(try store.increment("attempts:alice", limit: 3, now: testNow) == expected)
        }
        #expect(try store.increment("attempts:alice", limit: 3, now: testNow) == nil)
        #expect(try store.increment("attempts:alice", limit: 3, now: testNow) == nil)
        #expect(try store.value("attempts:alice") == 3)
        // A higher limit lets it go on; a lower one refuses.
        #expect(try store.increment("attempts:alice", limit: 4, now: testNow) == 4)
        #expect(try store.increment("attempts:alice", limit: 2, now: testNow) == nil)
        #expect(try store.value("attempts:alice") == 4)
        // Limit 1: exactly one success; limit 0 or below: never, and nothing is written.
        #expect(try store.increment("one", limit: 1, now: testNow) == 1)
        #expect(try store.increment("one", limit: 1, now: testNow) == nil)
        #expect(try store.increment("zero", limit: 0, now: testNow) == nil)
        #expect(try store.increment("negative", limit: -5, now: testNow) == nil)
        #expect(try store.value("zero") == 0)
        // Large limits work (no overflow in the comparison).
        #expect(try store.increment("big", limit: Int64.max, now: testNow) == 1)
    }

    static func counterValueAndReset(_ store: any ConformingStore, _: any StoreNodes) throws {
        #expect(try store.value("never") == 0)
        try store.reset("never")  // resetting a counter that does not exist is fine
        #expect(try store.value("never") == 0)
        _ = try store.increment("a", limit: 10, now: testNow)
        _ = try store.increment("a", limit: 10, now: testNow)
        _ = try store.increment("b", limit: 10, now: testNow)
        #expect(try store.value("a") == 2)
        #expect(try store.value("b") == 1)
        try store.reset("a")
        #expect(try store.value("a") == 0)
        #expect(try store.value("b") == 1)
        #expect(try store.increment("a", limit: 10, now: testNow) == 1)
        // Giving back takes one off, never below 0.
        try store.decrement("b")
        try store.decrement("b")
        try store.decrement("never")
        #expect(try store.value("b") == 0)
        #expect(try store.value("never") == 0)
    }

    /// Leases: counts that tries being judged hold, which come back by themselves once expired.
    static func counterLeases(_ store: any ConformingStore, _: any StoreNodes) throws {
        let until = testNow.addingTimeInterval(10)
        #expect(try (0..<4).map { _ in try store.takeLease("attempts:lee", limit: 3, now: testNow, expiresAt: until) } == [1, 2, 3, nil])
        #expect(try store.liveLeases("attempts:lee", now: testNow) == 3)
        #expect(try store.liveLeases("attempts:lee", now: until) == 0)
        #expect(try !store.isSpent("attempts:lee", limit: 3, now: testNow))
        #expect(try store.isSpent("attempts:lee", limit: 3, now: until))
        #expect(try !store.isSpent("attempts:lee", limit: 4, now: until))
        // A try not judged gives its count back; a failed one keeps it.
        try store.endLease("attempts:lee", keepingCount: false, now: testNow)
        #expect(try store.value("attempts:lee") == 2)
        #expect(try store.endLease("attempts:lee", keepingCount: true, now: testNow) == nil)
        #expect(try store.value("attempts:lee") == 2)
        // The last lease belongs to a try whose process died: at its expiry its count comes back
        // before the next take.
        #expect(try store.takeLease("attempts:lee", limit: 3, now: testNow.addingTimeInterval(9), expiresAt: until) == 3)
        #expect(try store.takeLease("attempts:lee", limit: 3, now: testNow.addingTimeInterval(10), expiresAt: until.addingTimeInterval(10)) == 2)
        #expect(try store.value("attempts:lee") == 2)
        // A failure whose lease was reclaimed meanwhile still counts; a give-back of one does not give twice.
        #expect(try store.reclaimExpiredLeases(now: until.addingTimeInterval(10)) == 1)
        #expect(try store.value("attempts:lee") == 1)
        #expect(try store.endLease("attempts:lee", keepingCount: true, now: testNow) == 2)
        #expect(try store.value("attempts:lee") == 2)
        try store.endLease("attempts:lee", keepingCount: false, now: testNow)
        #expect(try store.value("attempts:lee") == 2)
        // A reset ends the leases without giving their counts back (the count is 0 already).
        #expect(try store.takeLease("attempts:lee", limit: 3, now: testNow, expiresAt: until) == 3)
        try store.reset("attempts:lee")
        #expect(try store.reclaimExpiredLeases(now: until) == 0)
        try store.endLease("attempts:lee", keepingCount: false, now: testNow)
        #expect(try store.value("attempts:lee") == 0)
        // The sweep gives back each counter what its expired leases held, and no more.
        for key in ["a", "a", "b"] { _ = try store.takeLease(key, limit: 5, now: testNow, expiresAt: testNow.addingTimeInterval(5)) }
        _ = try store.takeLease("a", limit: 5, now: testNow, expiresAt: testNow.addingTimeInterval(50))
        #expect(try store.reclaimExpiredLeases(now: testNow.addingTimeInterval(4)) == 0)
        #expect(try store.reclaimExpiredLeases(now: testNow.addingTimeInterval(5)) == 3)
        #expect(try [store.value("a"), store.value("b")] == [1, 0])
        #expect(try store.takeLease("zero", limit: 0, now: testNow, expiresAt: until) == nil)
    }

    /// Ten tries at once on two nodes take exactly the limit; ending their leases at once leaves
    /// exactly the failures counted and no lease behind.
    static func concurrentLeases(_ harness: any StoreNodes) throws {
        let nodes = [try harness.node(), try harness.node()]
        defer { nodes.forEach { $0.close() } }
        let until = testNow.addingTimeInterval(60)
        let taken = runConcurrently(10) { i in try nodes[i % 2].takeLease("attempts:con", limit: 5, now: testNow, expiresAt: until) }
        #expect(taken.compactMap { try? $0.get() }.compactMap { $0 }.sorted() == [1, 2, 3, 4, 5])
        let ended = runConcurrently(5) { i in try nodes[i % 2].endLease("attempts:con", keepingCount: i < 2, now: testNow) }
        #expect(ended.allSatisfy { if case .success(let count) = $0 { count == nil } else { false } }, "\(ended)")
        #expect(try nodes[1].value("attempts:con") == 2)
        #expect(try nodes[0].reclaimExpiredLeases(now: until) == 0)
    }

    // MARK: Lifecycle and migrations

    static func closeThenUnavailable(_ store: any ConformingStore, _ harness: any StoreNodes) throws {
        let other = try harness.node()
        defer { other.close() }
        try store.issue(token("before-close"))
        store.close()
        let d = digest("before-close")
        expectStoreError(.unavailable) { try store.ping() }
        expectStoreError(.unavailable) { try store.issue(token("after-close")) }
        expectStoreError(.unavailable) { try store.consume(purpose: "activation", digest: d, now: testNow) }
        expectStoreError(.unavailable) { try store.peek(purpose: "activation", digest: d, now: testNow) }
        expectStoreError(.unavailable) { try store.revokeAll(purpose: "activation", subject: "user-1") }
        expectStoreError(.unavailable) { try store.purgeExpired(now: testNow) }
        expectStoreError(.unavailable) { try store.increment("k", limit: 5, now: testNow) }
        expectStoreError(.unavailable) { try store.value("k") }
        expectStoreError(.unavailable) { try store.reset("k") }
        if let sql = store as? SQLStore {
            expectStoreError(.unavailable) { try sql.schemaVersion() }
            expectStoreError(.unavailable) { try sql.migrate() }
        }
        store.close()  // closing twice is harmless
        // Another store on the same database is unaffected.
        try other.ping()
        #expect(try other.consume(purpose: "activation", digest: d, now: testNow) != nil)
    }

    static func migrationsIdempotent(_ store: SQLStore, _ harness: StoreHarness) throws {
        let latest = SQLStore.latestSchemaVersion
        #expect(latest == Migrations.all.count)
        #expect(try store.schemaVersion() == latest)
        let again = try store.migrate()
        #expect(again == MigrationStatus(currentVersion: latest, latestVersion: latest, applied: [], pending: []))
        #expect(try store.migrate(apply: false).pending == [])
        // Reopening runs the migrations again: nothing to do, data intact.
        try store.issue(token("kept"))
        let reopened = try harness.open()
        defer { reopened.close() }
        #expect(try reopened.schemaVersion() == latest)
        #expect(try reopened.peek(purpose: "activation", digest: digest("kept"), now: testNow) != nil)
        let rows = try store.database.read { try $0.query("SELECT version, name, applied_at FROM schema_migrations ORDER BY version") }
        #expect(rows.count == latest)
        #expect(try rows.map { try $0.int(0) } == Migrations.all.map(\.version))
        #expect(try rows.map { try $0.string(1) } == Migrations.all.map(\.name))
        #expect(try rows.allSatisfy { try $0.int64(2) > 0 })
    }

    static func migrationsFromEmptyDatabase(_ harness: StoreHarness) throws {
        let store = try harness.open(migrate: false)
        defer { store.close() }
        try store.ping()
        #expect(try store.schemaVersion() == 0)
        let all = Migrations.all.map(\.version)
        let dryRun = try store.migrate(apply: false)
        #expect(dryRun == MigrationStatus(currentVersion: 0, latestVersion: SQLStore.latestSchemaVersion, applied: [], pending: all))
        #expect(try store.schemaVersion() == 0)  // the dry run created nothing
        let status = try store.migrate(apply: true)
        #expect(status == MigrationStatus(currentVersion: SQLStore.latestSchemaVersion, latestVersion: SQLStore.latestSchemaVersion, applied: all, pending: []))
        try store.issue(token("x"))
        #expect(try store.increment("x", limit: 1, now: testNow) == 1)
    }

    static func refusesNewerSchema(_ store: SQLStore, _ harness: StoreHarness) throws {
        let future = SQLStore.latestSchemaVersion + 1
        _ = try store.database.write {
            try $0.execute("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, 'from the future', 0)", [.integer(Int64(future))])
        }
        #expect(try store.schemaVersion() == future)
        expectStoreError(.migrationFailed) { try store.migrate() }
        expectStoreError(.migrationFailed) { try store.migrate(apply: false) }
        expectStoreError(.migrationFailed, "opening with migrations refuses too") { try harness.open() }
        // Opening without migrations still works (the operator decides).
        let unmigrated = try harness.open(migrate: false)
        unmigrated.close()
    }

    // MARK: Concurrency (several stores on one database act like several nodes)

    static func concurrentConsume(_ harness: any StoreNodes) throws {
        let nodes = [try harness.node(), try harness.node()]
        defer { nodes.forEach { $0.close() } }
        let contested = token("contested")
        try nodes[0].issue(contested)
        let results = runConcurrently(20) { i in
            try nodes[i % nodes.count].consume(purpose: contested.purpose, digest: contested.digest, now: testNow)
        }
        let winners = results.compactMap { try? $0.get() }.compactMap { $0 }
        let failures = results.filter { if case .failure = $0 { return true } else { return false } }
        #expect(failures.isEmpty, "errors: \(failures)")
        #expect(winners == [contested])
        #expect(try nodes[1].peek(purpose: contested.purpose, digest: contested.digest, now: testNow) == nil)
    }

    static func concurrentIncrement(_ harness: any StoreNodes) throws {
        let nodes = [try harness.node(), try harness.node()]
        defer { nodes.forEach { $0.close() } }
        let results = runConcurrently(50) { i in
            try nodes[i % nodes.count].increment("rate:ip", limit: 10, now: testNow)
        }
        let failures = results.filter { if case .failure = $0 { return true } else { return false } }
        #expect(failures.isEmpty, "errors: \(failures)")
        let values = results.compactMap { try? $0.get() }.compactMap { $0 }
        #expect(values.count == 10)
        #expect(values.sorted() == Array(1...10))
        #expect(try nodes[0].value("rate:ip") == 10)
        #expect(try nodes[1].value("rate:ip") == 10)
    }

    static func concurrentDuplicateIssue(_ store: any ConformingStore, _: any StoreNodes) throws {
        let same = token("raced")
        let results = runConcurrently(10) { _ in try store.issue(same) }
        var successes = 0
        var duplicates = 0
        for result in results {
            switch result {
            case .success: successes += 1
            case .failure(let error as StoreError):
                if case .duplicate = error { duplicates += 1 } else { Issue.record("unexpected \(error)") }
            case .failure(let error): Issue.record("unexpected \(error)")
            }
        }
        #expect(successes == 1)
        #expect(duplicates == 9)
    }

    static func concurrentMigrate(_ harness: StoreHarness) throws {
        let results = runConcurrently(4) { _ in try harness.open(migrate: true) }
        let stores = results.compactMap { try? $0.get() }
        defer { stores.forEach { $0.close() } }
        let failures = results.filter { if case .failure = $0 { return true } else { return false } }
        #expect(failures.isEmpty, "errors: \(failures)")
        let store = try #require(stores.first)
        #expect(try store.schemaVersion() == SQLStore.latestSchemaVersion)
        let count = try store.database.read { try $0.queryFirst("SELECT COUNT(*) FROM schema_migrations")?.int(0) }
        #expect(count == Migrations.all.count)
    }
}
