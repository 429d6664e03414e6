import CustosAPI
import CustosCore
import Foundation

/// The rows of every table, as plain values: copying it is what lets a block roll back.
struct MemoryState {
    struct TokenKey: Hashable {
        var purpose: String
        var digest: Data
    }

    struct Counter {
        var value: Int64
        var updatedAt: Date
    }

    struct TemplateKey {
        var createdAt: Date
        var active: Bool
    }

    var tokens: [TokenKey: SingleUseToken] = [:]
    var counters: [String: Counter] = [:]
    /// Counter leases: (key, expiry) in the order taken.
    var counterLeases: [(key: String, expiresAt: Date)] = []
    var metadata: [String: String] = [:]
    var users: [String: User] = [:]
    var userClaims: [String: UserClaims] = [:]
    var devices: [String: Device] = [:]
    var sessions: [String: Session] = [:]
    var apiKeys: [String: APIKey] = [:]
    var transactions: [String: IDVTransaction] = [:]
    var templates: [String: SealedTemplate] = [:]
    var templateKeys: [String: TemplateKey] = [:]
    var frameMemories: [String: SealedFrameMemory] = [:]
    var documents: [String: SealedDocument] = [:]
    var signingKeys: [String: StoredSigningKey] = [:]
    /// In sequence order.
    var audit: [AuditEvent] = []
    var notifications: [String: StepUpNotification] = [:]
    var webhooks: [String: WebhookDelivery] = [:]
    var cibaRequests: [String: CIBARequest] = [:]
    var cibaClients: [String: CIBAClient] = [:]
    var oidcClients: [String: OIDCClient] = [:]
    var pendingAuthorizations: [String: PendingAuthorization] = [:]
    var oidcGrants: [String: OIDCGrant] = [:]
    /// By code digest.
    var oidcCodes: [Data: AuthorizationCode] = [:]
    /// By token digest.
    var refreshTokens: [Data: RefreshToken] = [:]
    /// `jti` digests, with when each record expires.
    var clientAssertions: [Data: Date] = [:]

    /// A row that refers to a missing one, in the terms the SQL stores use for a foreign key.
    static func missing(_ what: String) -> StoreError { .failure("foreign key: no such \(what)") }

    func requireUser(_ id: String) throws {
        guard users[id] != nil else { throw Self.missing("user") }
    }
}

/// Ids and keys sort in byte order of their UTF-8, as both SQL dialects sort them.
func bytewise(_ a: String, _ b: String) -> Bool {
    a.utf8.lexicographicallyPrecedes(b.utf8)
}

/// A date as it reads back from a store (to the millisecond).
func storedDate(_ date: Date) -> Date { StoredTime.rounded(date) }
