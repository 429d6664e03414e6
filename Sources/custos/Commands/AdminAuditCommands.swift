import CustosAPI
import CustosConfiguration
import CustosCore
import CustosCrypto
import CustosCryptoServices
import CustosRuntime
import Foundation

/// `custos admin audit verify|list`: straight against the database, like `admin apikey`, so
/// the audit can be checked with no server running. Verifying needs the master key (the chain
/// is keyed under it); listing does not.
enum AdminAuditCommands {
    static let all: [Command] = [verify, list]

    static let expectHead = Option<(sequence: Int64, hash: Data)?>(
        optional: "expect-head", "SEQ:HASH", help: "a head printed by an earlier verify: that event must still have that hash",
        expected: "SEQ:HASH as verify prints it (a sequence number, a colon, 64 hex digits)", convert: parseHead)

    static let full = Flag("full", help: "with --expect-head: recompute the whole chain too, not only the events after the head")

    static let verify = Command(spec: CommandSpec(
        path: "admin audit verify", summary: "Recompute the audit hash chain; name the first broken event.",
        options: [expectHead.spec, full.spec] + ServeCommand.settingOptions(keyedSettings),
        example: "custos admin audit verify --expect-head 42:<64 hex digits>")
    ) { arguments in
        let expected = arguments[expectHead]
        let configuration = try ServeCommand.resolveConfiguration(arguments, settings: keyedSettings).configuration
        let masterKeys = try MasterKeyLoader.load(configuration)
        let store = try MasterKeyLoader.openStore(configuration, checking: masterKeys)
        defer { store.close() }
        let trail = ApplicationFactory.auditTrail(store: store, masterKeys: masterKeys)
        // A chain rewritten from some event on, hashes recomputed, is intact in itself: only a
        // head kept elsewhere shows it. Found unchanged, it is where the check resumes.
        var resumeAfter: AuditEvent?
        if let expected {
            let found = try trail.list(userID: nil, transactionID: nil, afterSequence: expected.sequence - 1, limit: 1).first
            guard let event = found, event.sequence == expected.sequence else {
                Console.out("audit chain cut short: event \(expected.sequence) of the expected head is gone")
                return .failure
            }
            guard event.hash == expected.hash else {
                Console.out("audit chain rewritten: event \(expected.sequence) no longer has the expected hash")
                return .failure
            }
            resumeAfter = arguments[full] ? nil : event
        }
        let result = try trail.verify(after: resumeAfter)
        if let broken = result.firstBreak {
            Console.out("audit chain broken at event \(broken.sequence): \(broken.reason); \(result.checked) events before it intact")
            return .failure
        }
        if let expected, resumeAfter != nil {
            Console.out("audit chain intact: expected head \(expected.sequence) found, \(result.checked) events after it")
        } else {
            Console.out("audit chain intact: \(result.checked) events" + (expected.map { ", expected head \($0.sequence) found" } ?? ""))
        }
        if let head = result.headHash {
            Console.out("head: event \(result.lastSequence), hash \(Hex.encode(head)) (keep it elsewhere; check later with --expect-head \(result.lastSequence):\(Hex.encode(head)))")
        }
        return .ok
    }

    /// `SEQ:HASH` (hex) as `verify` prints it.
    @Sendable static func parseHead(_ text: String) -> (sequence: Int64, hash: Data)? {
        let parts = text.split(separator: ":", maxSplits: 1)
        guard parts.count == 2, let sequence = Int64(parts[0]), sequence >= 1, let hash = Hex.decode(String(parts[1])).map({ Data($0) }), hash.count == 32 else {
            return nil
        }
        return (sequence, hash)
    }

    static let user = Option<String?>.text("user", "USER", help: "only this user's events")
    static let transaction = Option<String?>.text("transaction", "ID", help: "only this transaction's events")
    static let actor = Option<String?>.text("actor", "KEY", help: "only what this API key id did (local: the data directory's operator)")
    static let after = Option<Int64>.integer("after", "SEQ", in: 0...Int64.max, default: 0, help: "start after this sequence")
    static let limit = Option<Int>.integer("limit", in: 1...AuditTrail.maximumListLimit, default: 100,
                                           help: "page size 1-\(AuditTrail.maximumListLimit)")

    static let list = Command(spec: CommandSpec(
        path: "admin audit list", summary: "List audit events, oldest first, a page at a time.",
        options: [user.spec, transaction.spec, actor.spec, after.spec, limit.spec, ClientOptions.json.spec] + DatabaseOptions.options,
        example: "custos admin audit list --user alice --limit 20")
    ) { arguments in
        let limit = arguments[limit]
        let events = try withTrail(arguments) { trail in
            do {
                return try trail.list(userID: arguments[user], transactionID: arguments[transaction], actor: arguments[actor],
                                      afterSequence: arguments[after], limit: limit)
            } catch AuditError.invalidIdentifier(let field) {
                let option = ["user_id": "user", "transaction_id": "transaction"][field] ?? field
                throw UsageError("--\(option) must not be empty or hold control characters")
            }
        }
        let page = AuditEventList(events: events.map(AuditEventInfo.init), nextAfter: events.count == limit ? events.last?.sequence : nil)
        try ClientOptions.output(arguments, page) {
            (page.events.isEmpty ? ["no audit events"] : page.events.map(describe)) + (page.nextAfter.map { ["more: --after \($0)"] } ?? [])
        }
        return .ok
    }

    /// What `verify` reads: the database and the master key.
    static let keyedSettings: [Setting] = DatabaseOptions.settings + [.dev, .masterKey, .masterKeyFile, .previousMasterKeyFile]

    /// A trail for listing only: listing reads events and never hashes, so it needs no key.
    private static func withTrail<T>(_ arguments: ParsedArguments, _ body: (AuditTrail) throws -> T) throws -> T {
        try DatabaseOptions.withStore(arguments) { try body(AuditTrail(store: $0, digester: SHA256SecretDigester(), clock: SystemClock())) }
    }

    /// `7  2026-01-02T03:04:05Z  idv.verdict  user=alice  transaction=t1  result=MATCHED`
    static func describe(_ event: AuditEventInfo) -> String {
        var fields = ["\(event.sequence)", iso(event.occurredAt), event.kind]
        if let user = event.userID { fields.append("user=\(user)") }
        if let transaction = event.transactionID { fields.append("transaction=\(transaction)") }
        fields += event.details.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        return fields.joined(separator: "  ")
    }
}
