import Foundation

/// API keys of relying parties and administrators: random, shown once, stored as digests.
public final class APIKeyService: Sendable {
    public typealias Storage = APIKeyStore & AtomicStore
    let store: any Storage
    let digester: any SecretDigester
    let random: any RandomSource
    let clock: any Clock
    /// Where keys created and revoked are recorded, with who did it.
    let audit: AuditTrail?

    public init(store: any Storage, digester: any SecretDigester, random: any RandomSource, clock: any Clock, audit: AuditTrail? = nil) {
        self.store = store
        self.digester = digester
        self.random = random
        self.clock = clock
        self.audit = audit
    }

    /// Creates a key; the returned secret is never stored and cannot be shown again. `actor`:
    /// the key that asked, or `AuditActor.local`.
    public func create(scope: APIKey.Scope, label: String, actor: String) throws -> (APIKey, secret: String) {
        let label = try InputRules.checkName(label, field: "label")
        let secret = "ck_" + IdentityService.token(random, bytes: 32)
        let id = random.hexID(bytes: 8)
        let key = APIKey(id: id, scope: scope, label: label, digest: digester.digest(secret), createdAt: clock.now())
        try store.atomically {
            try store.createAPIKey(key)
            try audit?.record(.apiKeyCreated, userID: nil, details: [AuditActor.detail: actor, "api_key_id": id, "scope": scope.rawValue])
        }
        return (key, secret)
    }

    /// The live key for a presented secret, if it has `scope` (an admin key has every scope).
    public func authenticate(secret: String, requiring scope: APIKey.Scope) throws -> APIKey {
        guard secret.hasPrefix("ck_"), secret.utf8.count <= 128,
              let key = try store.apiKey(digest: digester.digest(secret)), key.revokedAt == nil else {
            throw IdentityError.invalidAPIKey
        }
        guard key.scope == .admin || key.scope == scope else { throw IdentityError.insufficientScope }
        return key
    }

    public func list() throws -> [APIKey] { try store.apiKeys() }

    public func revoke(id: String, actor: String) throws {
        try InputRules.checkToken(id, field: "id")
        try store.atomically {
            guard try store.revokeAPIKey(id: id, at: clock.now()) else { throw IdentityError.apiKeyNotFound }
            try audit?.record(.apiKeyRevoked, userID: nil, details: [AuditActor.detail: actor, "api_key_id": id])
        }
    }
}
