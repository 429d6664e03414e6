import CustosAPI
import CustosCore
import CustosHTTP

/// The audit trail for operators (admin scope): a page of events, and the chain's verification.
enum AuditRoutes {
    static func register(on routes: inout EndpointRouter, _ groups: AccessGroups, audit: AuditTrail?) {
        @Sendable func trail() throws -> AuditTrail {
            guard let audit else { throw HTTPError(status: 404, code: "not_found", message: "This server keeps no audit trail.") }
            return audit
        }
        routes.on(Endpoints.auditEvents, groups.admin) { context, _ in
            let query = context.request.query
            let limit = try integer(query["limit"], "limit", default: 100)
            let after = try integer(query["after"], "after", default: 0)
            let events = try trail().list(userID: query["user"], transactionID: query["transaction"], actor: query["actor"],
                                         afterSequence: Int64(after), limit: limit)
            return AuditEventList(events: events.map(AuditEventInfo.init),
                                  nextAfter: events.count == limit ? events.last?.sequence : nil)
        }
        routes.on(Endpoints.verifyAudit, groups.admin) { _, _ in
            let result = try trail().verify()
            return AuditVerificationInfo(intact: result.firstBreak == nil, checked: result.checked, lastSequence: result.lastSequence,
                                         headHash: result.headHash.map { Hex.encode($0) },
                                         firstBreak: result.firstBreak.map { AuditBreakInfo(sequence: $0.sequence, reason: String(describing: $0.reason)) })
        }
    }

    static func integer(_ text: String?, _ name: String, default value: Int) throws -> Int {
        guard let text else { return value }
        guard let number = Int(text), number >= 0 else {
            throw HTTPError(status: 422, code: "invalid_field", message: "\(name) must be a whole number, 0 or more.")
        }
        return number
    }
}

extension AuditEventInfo {
    /// An event as the API and `custos admin audit list --json` show it.
    public init(_ event: AuditEvent) {
        self.init(sequence: event.sequence, occurredAt: event.occurredAt, kind: event.kind, userID: event.userID,
                  transactionID: event.transactionID, details: event.details,
                  previousHash: Hex.encode(event.previousHash), hash: Hex.encode(event.hash))
    }
}
