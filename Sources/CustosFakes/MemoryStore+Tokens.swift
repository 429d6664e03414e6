import CustosCore
import Foundation

// MARK: - SingleUseTokenStore

extension MemoryStore: SingleUseTokenStore {
    public func issue(_ token: SingleUseToken) throws {
        var token = token
        token.expiresAt = storedDate(token.expiresAt)
        try write { state in
            let key = MemoryState.TokenKey(purpose: token.purpose, digest: token.digest)
            // Expired tokens still hold their key until purged, as rows do.
            guard state.tokens[key] == nil else {
                throw StoreError.duplicate("a single-use token with this purpose and digest already exists")
            }
            state.tokens[key] = token
        }
    }

    public func consume(purpose: String, digest: Data, now: Date) throws -> SingleUseToken? {
        try write { state in
            let key = MemoryState.TokenKey(purpose: purpose, digest: digest)
            guard let token = state.tokens[key], token.expiresAt > storedDate(now) else { return nil }
            state.tokens[key] = nil
            return token
        }
    }

    /// The one that expires first, like the SQL stores' `ORDER BY expires_at`.
    public func consumeAny(purpose: String, subject: String, now: Date) throws -> SingleUseToken? {
        try write { state in
            let live = state.tokens.values.filter { $0.purpose == purpose && $0.subject == subject && $0.expiresAt > storedDate(now) }
            guard let first = live.min(by: { ($0.expiresAt, $0.digest.base64EncodedString()) < ($1.expiresAt, $1.digest.base64EncodedString()) })
            else { return nil }
            state.tokens[MemoryState.TokenKey(purpose: purpose, digest: first.digest)] = nil
            return first
        }
    }

    public func peek(purpose: String, digest: Data, now: Date) throws -> SingleUseToken? {
        try read { state in
            state.tokens[MemoryState.TokenKey(purpose: purpose, digest: digest)].flatMap { $0.expiresAt > storedDate(now) ? $0 : nil }
        }
    }

    @discardableResult
    public func revokeAll(purpose: String, subject: String) throws -> Int {
        try write { state in
            state.tokens.removeAll { $0.value.purpose == purpose && $0.value.subject == subject }
        }
    }

    @discardableResult
    public func purgeExpired(now: Date) throws -> Int {
        try write { state in state.tokens.removeAll { $0.value.expiresAt <= storedDate(now) } }
    }
}

// MARK: - CounterStore

/// Not `MemoryCounters`: these counters must roll back with a block and go with their user,
/// so they live in the same state as every other row.
extension MemoryStore: CounterLeaseStore {
    /// A `limit` of 0 or less means the counter is always at its limit, as in the SQL stores.
    public func increment(_ key: String, limit: Int64, now: Date) throws -> Int64? {
        guard limit > 0 else {
            try read { _ in }
            return nil
        }
        return try write { state in
            let value = state.counters[key]?.value ?? 0
            guard value < limit else { return nil }
            state.counters[key] = MemoryState.Counter(value: value + 1, updatedAt: storedDate(now))
            return value + 1
        }
    }

    public func value(_ key: String) throws -> Int64 {
        try read { $0.counters[key]?.value ?? 0 }
    }

    public func lastIncrement(_ key: String) throws -> Date? {
        try read { $0.counters[key]?.updatedAt }
    }

    public func decrement(_ key: String) throws {
        try write { state in
            if let value = state.counters[key]?.value, value > 0 { state.counters[key]?.value = value - 1 }
        }
    }

    public func reset(_ key: String) throws {
        try write { state in
            state.counters[key] = nil
            state.counterLeases.removeAll { $0.key == key }
        }
    }

    public func takeLease(_ key: String, limit: Int64, now: Date, expiresAt: Date) throws -> Int64? {
        try write { state in
            let expired = state.counterLeases.filter { $0.key == key && $0.expiresAt <= storedDate(now) }.count
            state.counterLeases.removeAll { $0.key == key && $0.expiresAt <= storedDate(now) }
            if expired > 0, let value = state.counters[key]?.value { state.counters[key]?.value = max(0, value - Int64(expired)) }
            let value = state.counters[key]?.value ?? 0
            guard limit > 0, value < limit else { return nil }
            state.counters[key] = MemoryState.Counter(value: value + 1, updatedAt: storedDate(now))
            state.counterLeases.append((key, storedDate(expiresAt)))
            return value + 1
        }
    }

    @discardableResult
    public func endLease(_ key: String, keepingCount: Bool, now: Date) throws -> Int64? {
        try write { state in
            let first = state.counterLeases.indices.filter { state.counterLeases[$0].key == key }
                .min { state.counterLeases[$0].expiresAt < state.counterLeases[$1].expiresAt }
            if let first { state.counterLeases.remove(at: first) }
            switch (first == nil, keepingCount) {
            case (false, false):
                if let value = state.counters[key]?.value, value > 0 { state.counters[key]?.value = value - 1 }
            case (true, true):
                state.counters[key] = MemoryState.Counter(value: (state.counters[key]?.value ?? 0) + 1, updatedAt: storedDate(now))
            default:
                break
            }
            return first == nil ? state.counters[key]?.value ?? 0 : nil
        }
    }

    public func isSpent(_ key: String, limit: Int64, now: Date) throws -> Bool {
        try read { state in
            (state.counters[key]?.value ?? 0) >= limit && !state.counterLeases.contains { $0.key == key && $0.expiresAt > storedDate(now) }
        }
    }

    public func liveLeases(_ key: String, now: Date) throws -> Int {
        try read { state in state.counterLeases.filter { $0.key == key && $0.expiresAt > storedDate(now) }.count }
    }

    @discardableResult
    public func reclaimExpiredLeases(now: Date) throws -> Int {
        try write { state in
            let expired = state.counterLeases.filter { $0.expiresAt <= storedDate(now) }
            state.counterLeases.removeAll { $0.expiresAt <= storedDate(now) }
            for lease in expired {
                if let value = state.counters[lease.key]?.value, value > 0 { state.counters[lease.key]?.value = value - 1 }
            }
            return expired.count
        }
    }

    @discardableResult
    public func purgeCounters(prefix: String, updatedBefore cutoff: Date) throws -> Int {
        try write { state in
            state.counters.removeAll { $0.key.utf8.starts(with: prefix.utf8) && $0.value.updatedAt < storedDate(cutoff) }
        }
    }
}

// MARK: - ServerMetadataStore

extension MemoryStore: ServerMetadataStore {
    public func metadata(_ name: String, storingIfAbsent value: String) throws -> String {
        try write { state in
            if let existing = state.metadata[name] { return existing }
            state.metadata[name] = value
            return value
        }
    }

    public func replaceMetadata(_ name: String, expected: String, with value: String) throws -> Bool {
        try write { state in
            guard state.metadata[name] == expected else { return false }
            state.metadata[name] = value
            return true
        }
    }
}

extension Dictionary {
    /// Removes the entries that match; returns how many.
    mutating func removeAll(where shouldRemove: (Element) throws -> Bool) rethrows -> Int {
        let doomed = try filter(shouldRemove).map(\.key)
        for key in doomed { removeValue(forKey: key) }
        return doomed.count
    }
}
