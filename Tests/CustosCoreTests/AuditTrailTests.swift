@testable import CustosCore
import Foundation
import Testing

@Suite struct AuditTrailTests {
    let store = MemoryStore()
    let clock = StepClock()
    var trail: AuditTrail { AuditTrail(store: store, digester: Digester(), clock: clock) }

    // MARK: Canonical form

    @Test func canonicalBytesAreTheDocumentedEncoding() throws {
        let event = AuditEvent(sequence: 1, occurredAt: Date(timeIntervalSince1970: 1.5), kind: "k", userID: "u", transactionID: nil,
                               details: ["b": "2", "a": "1"], previousHash: Data([0xAA, 0xBB]), hash: Data([1, 2, 3]))
        let expected = "0000000f" + Data("custos.audit.v1".utf8).map { String(format: "%02x", $0) }.joined()
            + "0000000000000001" + "00000000000005dc"  // sequence, milliseconds
            + "000000016b"  // kind "k"
            + "0100000001" + "75"  // user id "u"
            + "00"  // no transaction id
            + "00000002" + "0000000161" + "0000000131" + "0000000162" + "0000000132"  // a=1, b=2, keys in byte order
            + "00000002aabb"  // previous hash
        #expect(AuditCanonicalForm.bytes(of: event).map { String(format: "%02x", $0) }.joined() == expected)
    }

    @Test func canonicalBytesTellApartWhatPlainConcatenationWouldNot() {
        let base = AuditEvent(sequence: 7, occurredAt: Date(timeIntervalSince1970: 0), kind: "k", userID: "ab", transactionID: nil,
                              details: [:], previousHash: AuditEvent.genesisHash, hash: Data())
        var variants = [base]
        var swapped = base
        swapped.userID = nil
        swapped.transactionID = "ab"
        variants.append(swapped)
        var split = base
        split.userID = "a"
        split.transactionID = "b"
        variants.append(split)
        var detailsOne = base
        detailsOne.details = ["ab": "c"]
        variants.append(detailsOne)
        var detailsTwo = base
        detailsTwo.details = ["a": "bc"]
        variants.append(detailsTwo)
        var later = base
        later.occurredAt = Date(timeIntervalSince1970: 0.001)
        variants.append(later)
        let encodings = Set(variants.map(AuditCanonicalForm.bytes(of:)))
        #expect(encodings.count == variants.count)
        // The stored hash itself is not part of what is hashed.
        var rehashed = base
        rehashed.hash = Data([9])
        #expect(AuditCanonicalForm.bytes(of: rehashed) == AuditCanonicalForm.bytes(of: base))
    }

    // MARK: Recording

    @Test func recordChainsEventsAtMillisecondPrecision() throws {
        let first = try trail.record(.idvTransactionStarted, userID: "alice", transactionID: "t1", details: ["workflow": "8"])
        let second = try trail.record(.idvVerdict, userID: "alice", transactionID: "t1", details: ["result": "MATCHED"])
        #expect(first.sequence == 1 && second.sequence == 2)
        #expect(first.previousHash == AuditEvent.genesisHash)
        #expect(second.previousHash == first.hash)
        #expect(first.hash == Digester().digest(bytes: AuditCanonicalForm.bytes(of: first)))
        #expect(first.kind == "idv.transaction_started" && first.auditKind == .idvTransactionStarted)
        #expect(first.occurredAt == Date(timeIntervalSince1970: 1_800_000_000.001))  // 0.0014 s dropped to the millisecond
        #expect(second.occurredAt == Date(timeIntervalSince1970: 1_800_000_001.001))
        #expect(store.events == [first, second])
    }

    @Test func kindsKeepTheirStoredNames() {
        #expect(AuditKind.allCases.count == Set(AuditKind.allCases.map(\.rawValue)).count)
        #expect(AuditKind.idvVerdict.rawValue == "idv.verdict")
        #expect(AuditKind.lockout.rawValue == "user.locked")
        #expect(AuditKind.keyRotation.rawValue == "keys.rotated")
        #expect(AuditKind(rawValue: "biometric.opted_out") == .optOut)
    }

    @Test func detailsAreShortPlainStrings() throws {
        try trail.record(.idvVerdict, userID: "u", details: ["reason": String(repeating: "é", count: 512)])
        let refused: [(String?, String?, [String: String])] = [
            ("u", nil, ["reason": String(repeating: "x", count: 513)]),
            ("u", nil, ["reason": "line\nbreak"]),
            ("u", nil, ["reason": "nul\u{0}"]),
            ("u", nil, ["": "x"]),
            ("u", nil, ["has space": "x"]),
            ("u", nil, [String(repeating: "k", count: 65): "x"]),
            ("u", nil, Dictionary(uniqueKeysWithValues: (0...32).map { ("k\($0)", "v") })),
            ("", nil, [:]),
            (String(repeating: "u", count: 257), nil, [:]),
            ("u", "tx\u{7}", [:]),
        ]
        for (userID, transactionID, details) in refused {
            #expect(throws: AuditError.self) { try trail.record(.idvVerdict, userID: userID, transactionID: transactionID, details: details) }
        }
        #expect(store.events.count == 1, "nothing refused was written")
    }

    @Test func listFiltersAndPages() throws {
        let a1 = try trail.record(.enrollment, userID: "alice")
        let b1 = try trail.record(.enrollment, userID: "bob", transactionID: "t")
        let a2 = try trail.record(.optOut, userID: "alice", transactionID: "t")
        #expect(try trail.list(userID: "alice", transactionID: nil) == [a1, a2])
        #expect(try trail.list(userID: nil, transactionID: "t") == [b1, a2])
        #expect(try trail.list(userID: nil, transactionID: nil, afterSequence: 1, limit: 1) == [b1])
        #expect(throws: AuditError.self) { try trail.list(userID: nil, transactionID: nil, limit: 0) }
        #expect(throws: AuditError.self) { try trail.list(userID: nil, transactionID: nil, limit: AuditTrail.maximumListLimit + 1) }
        #expect(throws: AuditError.self) { try trail.list(userID: nil, transactionID: nil, afterSequence: -1) }
    }

    // MARK: Verification

    @Test func verifyWalksEveryPage() throws {
        #expect(try trail.verify() == AuditVerification(checked: 0, lastSequence: 0, headHash: nil, firstBreak: nil))
        let count = AuditTrail.verifyPageSize * 2 + 3
        for i in 0..<count {
            try trail.record(.idvVerdict, userID: "u\(i % 7)", details: ["n": "\(i)"])
        }
        let result = try trail.verify()
        #expect(result == AuditVerification(checked: count, lastSequence: Int64(count), headHash: store.events.last?.hash, firstBreak: nil))
        #expect(result.isIntact)
    }

    @Test func verifyNamesAnAlteredEvent() throws {
        try recordMany(AuditTrail.verifyPageSize + 10)
        store.events[AuditTrail.verifyPageSize + 4].details["n"] = "forged"
        try expectBreak(at: Int64(AuditTrail.verifyPageSize + 5), .hashMismatch)
    }

    @Test func verifyNamesARemovedEvent() throws {
        try recordMany(10)
        store.events.remove(at: 6)
        try expectBreak(at: 7, .missing)
    }

    @Test func verifyNamesTheFirstEventWhenItIsRemoved() throws {
        try recordMany(3)
        store.events.removeFirst()
        try expectBreak(at: 1, .missing)
    }

    @Test func verifyNamesAnEventThatNoLongerLinks() throws {
        try recordMany(10)
        store.events[3].userID = "mallory"
        store.events[3].hash = trail.hash(of: store.events[3])
        try expectBreak(at: 5, .brokenLink)
    }

    @Test func verifyNamesEventsOutOfOrder() throws {
        try recordMany(10)
        store.events.swapAt(4, 5)
        try expectBreak(at: 5, .missing)
        store.events.swapAt(4, 5)
        store.events[4].sequence = 4
        try expectBreak(at: 5, .outOfOrder)
    }

    @Test func verifyChecksEveryEventBeforeAnUnreadableOne() throws {
        try recordMany(20)
        store.unreadable = [12]
        try expectBreak(at: 12, .unreadable("garbled"))
        store.events[4].details["n"] = "forged"
        try expectBreak(at: 5, .hashMismatch)
    }

    // MARK: Re-keying

    /// During a master key rotation events of either key verify; re-keying leaves one key and
    /// walks every page.
    @Test func rekeyingMovesAMixedChainToTheNewKey() throws {
        let count = AuditTrail.verifyPageSize + 5
        try recordMany(count)
        let rotating = AuditTrail(store: store, digester: Digester(key: 1), previousDigester: Digester(), clock: clock)
        try rotating.record(.lockout, userID: "u")
        #expect(try !trail.verify().isIntact)
        #expect(try rotating.verify().isIntact)
        #expect(try rotating.rekey() == count + 1)
        let newOnly = AuditTrail(store: store, digester: Digester(key: 1), clock: clock)
        #expect(try newOnly.verify() == AuditVerification(checked: count + 1, lastSequence: Int64(count + 1), headHash: store.events.last?.hash,
                                                          firstBreak: nil))
        #expect(try rotating.rekey() == 0)
    }

    @Test func rekeyingRefusesABrokenChainAndChangesNothing() throws {
        try recordMany(10)
        store.events[6].details["n"] = "forged"
        let before = store.events
        let rotating = AuditTrail(store: store, digester: Digester(key: 1), previousDigester: Digester(), clock: clock)
        #expect(throws: AuditError.brokenChain(AuditChainBreak(sequence: 7, reason: .hashMismatch))) { try rotating.rekey() }
        #expect(store.events == before)
    }

    // MARK: Helpers

    func recordMany(_ count: Int) throws {
        for i in 0..<count {
            try trail.record(.idvVerdict, userID: "u", transactionID: "t\(i)", details: ["n": "\(i)"])
        }
    }

    func expectBreak(at sequence: Int64, _ reason: AuditChainBreak.Reason, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try trail.verify()
        #expect(result.firstBreak == AuditChainBreak(sequence: sequence, reason: reason), sourceLocation: sourceLocation)
        #expect(result.checked == Int(sequence - 1), sourceLocation: sourceLocation)
        #expect(result.lastSequence == sequence - 1, sourceLocation: sourceLocation)
    }

    /// An in-memory `AuditStore` whose events tests may alter, and rows it may pretend it
    /// cannot read.
    final class MemoryStore: AuditStore, @unchecked Sendable {
        private let lock = NSLock()
        private var stored: [AuditEvent] = []
        private var garbled: Set<Int64> = []

        var events: [AuditEvent] {
            get { lock.withLock { stored } }
            set { lock.withLock { stored = newValue } }
        }

        var unreadable: Set<Int64> {
            get { lock.withLock { garbled } }
            set { lock.withLock { garbled = newValue } }
        }

        func appendAuditEvent(_ make: (AuditChainHead?) throws -> AuditEvent) throws -> AuditEvent {
            try lock.withLock {
                let head = stored.last.map { AuditChainHead(sequence: $0.sequence, hash: $0.hash) }
                let event = try make(head)
                guard event.sequence == (head?.sequence ?? 0) + 1, event.previousHash == head?.hash ?? AuditEvent.genesisHash else {
                    throw AuditError.chainConflict("test")
                }
                stored.append(event)
                return event
            }
        }

        /// All or nothing, like the database's transaction.
        func rewriteAuditChain(pageSize: Int, _ rewrite: (AuditEvent) throws -> AuditEvent) throws -> Int {
            try lock.withLock {
                let rewritten = try stored.map(rewrite)
                defer { stored = rewritten }
                return zip(stored, rewritten).filter { $0 != $1 }.count
            }
        }

        /// In stored order (as a database would return rows by a key that was altered).
        func auditEvents(afterSequence: Int64, limit: Int, userID: String?, transactionID: String?, actor: String?) throws -> [AuditEvent] {
            try lock.withLock {
                let page = stored.filter {
                    $0.sequence > afterSequence && (userID == nil || $0.userID == userID) && (transactionID == nil || $0.transactionID == transactionID)
                        && (actor == nil || $0.details["actor"] == actor)
                }.prefix(limit)
                if let bad = page.first(where: { garbled.contains($0.sequence) }) {
                    throw AuditError.unreadableEvent(sequence: bad.sequence, reason: "garbled")
                }
                return Array(page)
            }
        }
    }

    /// Not SHA-256 (Core has no crypto): 32 bytes from the standard library's hasher, stable
    /// within one test process, which is all the chain needs here. Another `key` gives other
    /// hashes, like another master key.
    struct Digester: SecretDigester {
        var key = 0
        func digest(_ secret: String) -> Data { digest(bytes: Data(secret.utf8)) }
        func digest(bytes: Data) -> Data {
            var out = Data()
            for lane in 0..<4 {
                var hasher = Hasher()
                hasher.combine(key)
                hasher.combine(lane)
                hasher.combine(bytes)
                withUnsafeBytes(of: hasher.finalize()) { out.append(contentsOf: $0) }
            }
            return out
        }
    }

    /// Starts at 1_800_000_000.0014 and moves one second on at every reading.
    final class StepClock: Clock, @unchecked Sendable {
        private let lock = NSLock()
        private var next = Date(timeIntervalSince1970: 1_800_000_000.0014)

        func now() -> Date {
            lock.withLock {
                defer { next = next.addingTimeInterval(1) }
                return next
            }
        }
    }
}
