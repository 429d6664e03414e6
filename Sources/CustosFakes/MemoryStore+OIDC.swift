import CustosAPI
import CustosCore
import Foundation

// MARK: - OIDCStore

/// The same answers as `SQLStore`'s: foreign keys and cascades included, dates to the
/// millisecond, and every single-use record spent once by one `write`.
extension MemoryStore: OIDCStore {
    // MARK: Clients

    public func saveOIDCClient(_ client: OIDCClient) throws {
        var client = client
        client.createdAt = storedDate(client.createdAt)
        try write { state in
            guard state.oidcClients[client.id] == nil else { throw StoreError.duplicate("an OpenID client with this id already exists") }
            state.oidcClients[client.id] = client
        }
    }

    public func oidcClient(id: String) throws -> OIDCClient? {
        try read { $0.oidcClients[id] }
    }

    /// Oldest first; clients created in the same millisecond in id order.
    public func oidcClients() throws -> [OIDCClient] {
        try read { state in
            state.oidcClients.values.sorted { $0.createdAt != $1.createdAt ? $0.createdAt < $1.createdAt : bytewise($0.id, $1.id) }
        }
    }

    public func deleteOIDCClient(id: String) throws -> Bool {
        try write { state in
            guard state.oidcClients.removeValue(forKey: id) != nil else { return false }
            state.dropOrphanedOIDCRecords()
            return true
        }
    }

    // MARK: Pending authorizations

    public func createPendingAuthorization(_ pending: PendingAuthorization) throws {
        var pending = pending
        pending.createdAt = storedDate(pending.createdAt)
        pending.expiresAt = storedDate(pending.expiresAt)
        try write { state in
            guard state.pendingAuthorizations[pending.id] == nil else {
                throw StoreError.duplicate("a pending authorization with this id already exists")
            }
            try state.requireUser(pending.userID)
            state.pendingAuthorizations[pending.id] = pending
        }
    }

    public func takePendingAuthorization(id: String) throws -> PendingAuthorization? {
        try write { $0.pendingAuthorizations.removeValue(forKey: id) }
    }

    // MARK: Grants and codes

    public func createGrant(_ grant: OIDCGrant, code: AuthorizationCode) throws {
        var grant = grant
        grant.authTime = storedDate(grant.authTime)
        grant.createdAt = storedDate(grant.createdAt)
        grant.revokedAt = grant.revokedAt.map(storedDate)
        var code = code
        code.expiresAt = storedDate(code.expiresAt)
        code.redeemedAt = code.redeemedAt.map(storedDate)
        try write { state in
            guard state.oidcGrants[grant.id] == nil, state.oidcCodes[code.digest] == nil else {
                throw StoreError.duplicate("a grant with this id or a code with this digest already exists")
            }
            guard state.oidcClients[grant.clientID] != nil else { throw MemoryState.missing("OpenID client") }
            try state.requireUser(grant.userID)
            guard code.grantID == grant.id || state.oidcGrants[code.grantID] != nil else { throw MemoryState.missing("grant") }
            state.oidcGrants[grant.id] = grant
            state.oidcCodes[code.digest] = code
        }
    }

    public func grant(id: String) throws -> OIDCGrant? {
        try read { $0.oidcGrants[id] }
    }

    @discardableResult
    public func revokeGrant(id: String, at: Date) throws -> Bool {
        try write { state in
            guard let grant = state.oidcGrants[id], grant.revokedAt == nil else { return false }
            state.oidcGrants[id]?.revokedAt = storedDate(at)
            return true
        }
    }

    public func revokeGrants(userID: String, deviceID: String?, at: Date) throws -> Int {
        try write { state in
            if deviceID == nil {
                for (digest, request) in state.cibaRequests
                where request.revokedAt == nil && state.notifications[request.notificationID]?.userID == userID {
                    state.cibaRequests[digest]?.revokedAt = storedDate(at)
                }
            }
            let ids = state.oidcGrants.values.filter { $0.userID == userID && $0.revokedAt == nil && (deviceID == nil || $0.deviceID == deviceID) }
                .map(\.id)
            for id in ids { state.oidcGrants[id]?.revokedAt = storedDate(at) }
            return ids.count
        }
    }

    public func redeemAuthorizationCode(digest: Data, now: Date) throws -> SpendOutcome<AuthorizationCode>? {
        try write { (state: inout MemoryState) -> SpendOutcome<AuthorizationCode>? in
            guard var code = state.oidcCodes[digest] else { return nil }
            guard code.redeemedAt == nil else { return .alreadySpent(code) }
            code.redeemedAt = storedDate(now)
            state.oidcCodes[digest] = code
            return .spent(code)
        }
    }

    // MARK: Refresh tokens

    public func createRefreshToken(_ token: RefreshToken) throws {
        var token = token
        token.expiresAt = storedDate(token.expiresAt)
        token.usedAt = token.usedAt.map(storedDate)
        try write { state in
            guard state.refreshTokens[token.digest] == nil else { throw StoreError.duplicate("a refresh token with this digest already exists") }
            guard state.oidcGrants[token.grantID] != nil else { throw MemoryState.missing("grant") }
            state.refreshTokens[token.digest] = token
        }
    }

    public func authorizationCode(digest: Data) throws -> AuthorizationCode? {
        try read { $0.oidcCodes[digest] }
    }

    public func refreshToken(digest: Data) throws -> RefreshToken? {
        try read { $0.refreshTokens[digest] }
    }

    public func useRefreshToken(digest: Data, now: Date) throws -> SpendOutcome<RefreshToken>? {
        try write { (state: inout MemoryState) -> SpendOutcome<RefreshToken>? in
            guard var token = state.refreshTokens[digest] else { return nil }
            guard token.usedAt == nil else { return .alreadySpent(token) }
            token.usedAt = storedDate(now)
            state.refreshTokens[digest] = token
            return .spent(token)
        }
    }

    // MARK: Client assertions, sign counters, retention

    public func recordClientAssertion(digest: Data, expiresAt: Date) throws -> Bool {
        try write { state in
            guard state.clientAssertions[digest] == nil else { return false }
            state.clientAssertions[digest] = storedDate(expiresAt)
            return true
        }
    }

    public func advanceSignCount(deviceID: String, to count: UInt32) throws -> Bool {
        try write { state in
            guard let device = state.devices[deviceID] else { return false }
            // 0 (an authenticator without a counter) only while the stored one is 0 too.
            let advances = count == 0 ? device.signCount == 0 : device.signCount < count
            guard advances else { return false }
            state.devices[deviceID]?.signCount = count
            return true
        }
    }

    /// Counts what `SQLStore` counts: the rows deleted directly, not the codes that go with
    /// their grant.
    public func purgeOIDC(before cutoff: Date) throws -> Int {
        let cutoff = storedDate(cutoff)
        return try write { state in
            // As the SQL stores: a grant goes with its last code or refresh token.
            let ending = Set(state.oidcCodes.values.filter { $0.expiresAt < cutoff }.map(\.grantID)
                + state.refreshTokens.values.filter { $0.expiresAt < cutoff }.map(\.grantID))
            var purged = state.pendingAuthorizations.removeAll { $0.value.expiresAt < cutoff }
            purged += state.oidcCodes.removeAll { $0.value.expiresAt < cutoff }
            purged += state.refreshTokens.removeAll { $0.value.expiresAt < cutoff }
            purged += state.clientAssertions.removeAll { $0.value < cutoff }
            let tokenGrants = Set(state.refreshTokens.values.map(\.grantID))
            purged += state.oidcGrants.removeAll { ending.contains($0.key) && !tokenGrants.contains($0.key) }
            state.dropOrphanedOIDCRecords()
            return purged
        }
    }
}

extension MemoryState {
    /// What the SQL stores' cascades delete: the grants of a client or user that is gone, and
    /// the codes and refresh tokens of a grant that is gone.
    mutating func dropOrphanedOIDCRecords() {
        let clients = oidcClients, liveUsers = users
        _ = oidcGrants.removeAll { clients[$0.value.clientID] == nil || liveUsers[$0.value.userID] == nil }
        let grants = oidcGrants
        _ = oidcCodes.removeAll { grants[$0.value.grantID] == nil }
        _ = refreshTokens.removeAll { grants[$0.value.grantID] == nil }
    }
}
