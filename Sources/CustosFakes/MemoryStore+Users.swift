import CustosAPI
import CustosCore
import Foundation

// MARK: - UserStore

extension MemoryStore: UserStore {
    public func createUser(_ user: User) throws {
        try write { state in
            guard state.users[user.id] == nil else { throw StoreError.duplicate("a user with this id already exists") }
            state.users[user.id] = user.stored
        }
    }

    public func user(id: String) throws -> User? {
        try read { $0.users[id] }
    }

    public func users(after afterID: String?, limit: Int, createdBy: String?) throws -> [User] {
        guard limit > 0 else { return try read { _ in [] } }
        return try read { state in
            let ids = state.users.keys.filter { afterID == nil || bytewise(afterID!, $0) }
                .filter { createdBy == nil || state.users[$0]?.createdBy == createdBy }.sorted(by: bytewise)
            return ids.prefix(limit).compactMap { state.users[$0] }
        }
    }

    public func userClaims(id: String) throws -> UserClaims? {
        try read { $0.userClaims[id] }
    }

    @discardableResult
    public func setUserClaims(_ claims: UserClaims?, id: String) throws -> Bool {
        try write { state in
            guard state.users[id] != nil else { return false }
            state.userClaims[id] = claims
            return true
        }
    }

    @discardableResult
    public func updateUser(_ user: User) throws -> Bool {
        try write { state in
            guard state.users[user.id] != nil else { return false }
            state.users[user.id] = user.stored
            return true
        }
    }

    /// The same conditions as the SQL stores' `UPDATE … WHERE`.
    @discardableResult
    public func changeUser(id: String, _ change: UserChange) throws -> Bool {
        try write { state in
            guard var user = state.users[id] else { return false }
            switch change {
            case .activate(let hash, let at):
                guard user.status == .pendingActivation else { return false }
                user.status = .active
                user.passwordHash = hash
                user.passwordChangedAt = storedDate(at)
                user.passwordMustChange = false
            case .password(let hash, let at):
                user.passwordHash = hash
                user.passwordChangedAt = storedDate(at)
                user.passwordMustChange = false
            case .disable:
                user.status = .disabled
            case .enable:
                guard user.status == .disabled else { return false }
                user.status = user.passwordHash == nil ? .pendingActivation : .active
            case .lock(let until):
                user.lockedUntil = storedDate(until)
                user.lockoutCount += 1
            case .unlock:
                user.lockedUntil = nil
            case .expirePassword:
                guard user.passwordHash != nil, user.status == .active else { return false }
                user.passwordMustChange = true
            case .reset(let at):
                guard user.status != .disabled else { return false }
                user.status = .pendingActivation
                user.passwordHash = nil
                user.passwordChangedAt = storedDate(at)
                user.lockedUntil = nil
                user.passwordMustChange = false
            }
            state.users[id] = user
            return true
        }
    }

    /// With everything that hangs on the user, as the SQL stores' cascades and suffix match do.
    @discardableResult
    public func deleteUser(id: String) throws -> Bool {
        try write { state in
            guard state.users.removeValue(forKey: id) != nil else { return false }
            state.userClaims[id] = nil
            let suffix = Array((":" + id).utf8)
            _ = state.devices.removeAll { $0.value.userID == id }
            _ = state.sessions.removeAll { $0.value.userID == id }
            _ = state.tokens.removeAll { $0.value.subject == id }
            _ = state.counters.removeAll { Array($0.key.utf8).reversed().starts(with: suffix.reversed()) }
            _ = state.templates.removeValue(forKey: id)
            _ = state.transactions.removeAll { $0.value.userID == id }
            _ = state.frameMemories.removeAll { $0.value.userID == id }
            let transactions = state.transactions
            _ = state.documents.removeAll { $0.value.userID == id || transactions[$0.value.transactionID] == nil }
            _ = state.notifications.removeAll { $0.value.userID == id }
            let notifications = state.notifications
            _ = state.webhooks.removeAll { notifications[$0.value.notificationID ?? ""] == nil }
            _ = state.cibaRequests.removeAll { notifications[$0.value.notificationID] == nil }
            _ = state.pendingAuthorizations.removeAll { $0.value.userID == id }
            state.dropOrphanedOIDCRecords()
            return true
        }
    }
}

// MARK: - DeviceStore

extension MemoryStore: DeviceStore {
    public func addDevice(_ device: Device) throws {
        try write { state in
            guard state.devices[device.id] == nil, !state.devices.values.contains(where: { $0.keyThumbprint == device.keyThumbprint }) else {
                throw StoreError.duplicate("a device with this id or key thumbprint already exists")
            }
            try state.requireUser(device.userID)
            state.devices[device.id] = device.stored
        }
    }

    public func device(id: String) throws -> Device? {
        try read { $0.devices[id] }
    }

    public func devices(userID: String) throws -> [Device] {
        try read { state in
            state.devices.values.filter { $0.userID == userID }.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        }
    }

    @discardableResult
    public func revokeDevice(id: String, at: Date) throws -> Bool {
        try write { state in
            guard let device = state.devices[id], device.revokedAt == nil else { return false }
            state.devices[id]?.revokedAt = storedDate(at)
            _ = state.sessions.removeAll { $0.value.deviceID == id }
            return true
        }
    }

    public func confirmDevice(id: String, by binding: DeviceBinding, probationUntil: Date?) throws -> Bool {
        try write { state in
            guard let device = state.devices[id], device.boundBy == .password, device.revokedAt == nil else { return false }
            state.devices[id]?.boundBy = binding
            state.devices[id]?.probationUntil = probationUntil.map(storedDate)
            return true
        }
    }

    public func touchDevice(id: String, at: Date, passwordVerified: Bool) throws {
        try write { state in
            guard state.devices[id] != nil else { return }
            state.devices[id]?.lastUsedAt = storedDate(at)
            if passwordVerified { state.devices[id]?.passwordVerifiedAt = storedDate(at) }
        }
    }
}

// MARK: - SessionStore

extension MemoryStore: SessionStore {
    public func createSession(_ session: Session) throws {
        try write { state in
            guard state.sessions[session.id] == nil, !state.sessions.values.contains(where: { $0.tokenDigest == session.tokenDigest }) else {
                throw StoreError.duplicate("a session with this id or token digest already exists")
            }
            try state.requireUser(session.userID)
            guard state.devices[session.deviceID] != nil else { throw MemoryState.missing("device") }
            state.sessions[session.id] = session.stored
        }
    }

    public func session(tokenDigest: Data) throws -> Session? {
        try read { $0.sessions.values.first { $0.tokenDigest == tokenDigest } }
    }

    /// Newest first; the same millisecond in descending id order.
    public func sessions(userID: String) throws -> [Session] {
        try read { state in
            state.sessions.values.filter { $0.userID == userID }.sorted { ($0.createdAt, $0.id) > ($1.createdAt, $1.id) }
        }
    }

    public func touchSession(id: String, at: Date) throws {
        try write { state in
            if state.sessions[id] != nil { state.sessions[id]?.lastSeenAt = storedDate(at) }
        }
    }

    @discardableResult
    public func deleteSession(id: String) throws -> Bool {
        try write { $0.sessions.removeValue(forKey: id) != nil }
    }

    @discardableResult
    public func deleteSessions(userID: String) throws -> Int {
        try write { state in state.sessions.removeAll { $0.value.userID == userID } }
    }

    @discardableResult
    public func deleteExpiredSessions(now: Date, idleSince: Date) throws -> Int {
        try write { state in
            state.sessions.removeAll { $0.value.expiresAt <= storedDate(now) || $0.value.lastSeenAt < storedDate(idleSince) }
        }
    }
}

// MARK: - APIKeyStore

extension MemoryStore: APIKeyStore {
    public func createAPIKey(_ key: APIKey) throws {
        try write { state in
            guard state.apiKeys[key.id] == nil, !state.apiKeys.values.contains(where: { $0.digest == key.digest }) else {
                throw StoreError.duplicate("an API key with this id or digest already exists")
            }
            var key = key
            key.createdAt = storedDate(key.createdAt)
            key.revokedAt = key.revokedAt.map(storedDate)
            state.apiKeys[key.id] = key
        }
    }

    public func apiKey(digest: Data) throws -> APIKey? {
        try read { $0.apiKeys.values.first { $0.digest == digest } }
    }

    public func apiKeys() throws -> [APIKey] {
        try read { $0.apiKeys.values.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) } }
    }

    @discardableResult
    public func revokeAPIKey(id: String, at: Date) throws -> Bool {
        try write { state in
            guard let key = state.apiKeys[id], key.revokedAt == nil else { return false }
            state.apiKeys[id]?.revokedAt = storedDate(at)
            return true
        }
    }
}

extension User {
    var stored: User {
        var user = self
        user.createdAt = storedDate(createdAt)
        user.passwordChangedAt = passwordChangedAt.map(storedDate)
        user.lockedUntil = lockedUntil.map(storedDate)
        return user
    }
}

extension Device {
    var stored: Device {
        var device = self
        device.createdAt = storedDate(createdAt)
        device.lastUsedAt = lastUsedAt.map(storedDate)
        device.passwordVerifiedAt = passwordVerifiedAt.map(storedDate)
        device.revokedAt = revokedAt.map(storedDate)
        device.probationUntil = probationUntil.map(storedDate)
        return device
    }
}

extension Session {
    var stored: Session {
        var session = self
        session.createdAt = storedDate(createdAt)
        session.lastSeenAt = storedDate(lastSeenAt)
        session.expiresAt = storedDate(expiresAt)
        return session
    }
}
