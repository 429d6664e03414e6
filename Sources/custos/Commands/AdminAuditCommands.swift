import CustosAPI
import CustosCore
import CustosCrypto
import CustosRuntime
import CustosServer
import Foundation

/// `custos admin audit verify|list`: straight against the database, like `admin apikey`, so
/// the audit can be checked with no server running. Verifying needs the master key (the chain
/// is keyed under it); listing does not.
enum AdminAuditCommands {
    static let all: [Command] = [verify, list]

    static let verify = Command(spec: CommandSpec(
        path: "admin audit verify", summary: "Recompute the audit hash chain; name the first broken event.",
        options: [.value("expect-head", "SEQ:HASH", "a head printed by an earlier verify: that event must still have that hash")]
            + ServeCommand.settingOptions(keyedSettings))
    ) { arguments in
        let expected = try arguments.value("expect-head").map(parseHead)
        let configuration = try ServeCommand.resolveConfiguration(arguments, settings: keyedSettings).configuration
        let masterKeys = try MasterKeyLoader.load(configuration)
        let store = try MasterKeyLoader.openStore(configuration, checking: masterKeys)
        defer { store.close() }
        let trail = ApplicationFactory.auditTrail(store: store, masterKeys: masterKeys)
        let result = try trail.verify()
        let found = try expected.map { try trail.list(userID: nil, transactionID: nil, afterSequence: $0.sequence - 1, limit: 1).first }
        if let broken = result.firstBreak {
            Console.out("audit chain broken at event \(broken.sequence): \(broken.reason); \(result.checked) events before it intact")
            return .failure
        }
        // A chain rewritten from some event on, hashes recomputed, is intact in itself: only a
        // head kept elsewhere shows it.
        if let expected {
            guard let event = found ?? nil, event.sequence == expected.sequence else {
                Console.out("audit chain cut short: event \(expected.sequence) of the expected head is gone")
                return .failure
            }
            guard event.hash == expected.hash else {
                Console.out("audit chain rewritten: event \(expected.sequence) no longer has the expected hash")
                return .failure
            }
        }
        Console.out("audit chain intact: \(result.checked) events" + (expected.map { ", expected head \($0.sequence) found" } ?? ""))
        if let head = result.headHash {
            Console.out("head: event \(result.lastSequence), hash \(Hex.encode(head)) (keep it elsewhere; check later with --expect-head \(result.lastSequence):\(Hex.encode(head)))")
        }
        return .ok
    }

    /// `SEQ:HASH` (hex) as `verify` prints it.
    static func parseHead(_ text: String) throws -> (sequence: Int64, hash: Data) {
        let parts = text.split(separator: ":", maxSplits: 1)
        guard parts.count == 2, let sequence = Int64(parts[0]), sequence >= 1, let hash = Hex.decode(String(parts[1])).map({ Data($0) }), hash.count == 32 else {
            throw UsageError("--expect-head must be SEQ:HASH as verify prints it (a sequence number, a colon, 64 hex digits)")
        }
        return (sequence, hash)
    }

    static let list = Command(spec: CommandSpec(
        path: "admin audit list", summary: "List audit events, oldest first, a page at a time.",
        options: [.value("user", "USER", "only this user's events"), .value("transaction", "ID", "only this transaction's events"),
                  .value("after", "SEQ", "start after this sequence (default 0)"),
                  .value("limit", "N", "page size 1-\(AuditTrail.maximumListLimit) (default 100)"),
                  ClientOptions.json] + DatabaseOptions.options)
    ) { arguments in
        let limit = try arguments.integer("limit", in: 1...AuditTrail.maximumListLimit) ?? 100
        let after = try arguments.integer("after", in: Int64(0)...Int64.max) ?? 0
        let events = try withTrail(arguments) { trail in
            do {
                return try trail.list(userID: arguments.value("user"), transactionID: arguments.value("transaction"),
                                      afterSequence: after, limit: limit)
            } catch AuditError.invalidIdentifier(let field) {
                throw UsageError("--\(field == "user_id" ? "user" : "transaction") must not be empty or hold control characters")
            }
        }
        let page = AuditEventList(events: events.map(info), nextAfter: events.count == limit ? events.last?.sequence : nil)
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

    static func info(_ event: AuditEvent) -> AuditEventInfo {
        AuditEventInfo(sequence: event.sequence, occurredAt: event.occurredAt, kind: event.kind, userID: event.userID,
                       transactionID: event.transactionID, details: event.details,
                       previousHash: Hex.encode(event.previousHash), hash: Hex.encode(event.hash))
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
