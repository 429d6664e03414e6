import Foundation

/// Errors every store implementation reports in the same terms, whatever the database.
public enum StoreError: Error, Equatable, Sendable {
    /// The database cannot be reached now (server down, connection lost). Retry later.
    case unavailable(String)
    /// A row with the same key already exists.
    case duplicate(String)
    /// The schema could not be brought to the expected version.
    case migrationFailed(String)
    /// Any other database failure; the detail is for the log, never for a client.
    case failure(String)
}

/// Lifecycle and reachability of the database behind the stores.
public protocol DatabaseHealth: Sendable {
    /// Throws `StoreError.unavailable` when the database cannot answer a trivial query.
    func ping() throws
    /// Releases every connection. Calls after `close()` throw `StoreError.unavailable`.
    func close()
}

/// A single-use secret (activation code, login nonce, authorization code, challenge nonce):
/// only its digest is stored, and consuming it is atomic in the database, so two server
/// nodes can never both accept the same token.
public struct SingleUseToken: Equatable, Sendable {
    /// What the token is for (`"activation"`, `"login_nonce"`, …); tokens of different
    /// purposes never collide.
    public var purpose: String
    /// SHA-256 (or HMAC) of the secret; the secret itself is never stored.
    public var digest: Data
    /// Whom the token belongs to (a user id, a device id, …).
    public var subject: String
    /// Opaque data the issuer needs back on consumption.
    public var payload: Data
    public var expiresAt: Date

    public init(purpose: String, digest: Data, subject: String, payload: Data = Data(), expiresAt: Date) {
        self.purpose = purpose
        self.digest = digest
        self.subject = subject
        self.payload = payload
        self.expiresAt = expiresAt
    }
}

public protocol SingleUseTokenStore: Sendable {
    /// Stores a new token. Throws `StoreError.duplicate` if the same purpose and digest exist.
    func issue(_ token: SingleUseToken) throws
    /// Atomically removes the token and returns it if it exists and has not expired at `now`;
    /// returns nil otherwise. Of any number of concurrent callers, at most one gets the token.
    func consume(purpose: String, digest: Data, now: Date) throws -> SingleUseToken?
    /// Atomically removes and returns one unexpired token of `subject` for `purpose` (a grant or
    /// proof that has no secret of its own); nil when there is none.
    func consumeAny(purpose: String, subject: String, now: Date) throws -> SingleUseToken?
    /// Returns the token without consuming it, if present and unexpired.
    func peek(purpose: String, digest: Data, now: Date) throws -> SingleUseToken?
    /// Removes every token of `subject` for `purpose` (e.g. when a user is deleted); returns how many.
    @discardableResult
    func revokeAll(purpose: String, subject: String) throws -> Int
    /// Removes expired tokens; returns how many.
    @discardableResult
    func purgeExpired(now: Date) throws -> Int
}

/// Named counters that change atomically in the database (attempt counters, rate limits).
public protocol CounterStore: Sendable {
    /// Adds one to `key` unless it has reached `limit`; returns the new value, or nil when the
    /// counter was already at `limit`. Of concurrent callers, exactly `limit - start` succeed.
    func increment(_ key: String, limit: Int64, now: Date) throws -> Int64?
    /// The current value (0 for a counter never incremented or reset).
    func value(_ key: String) throws -> Int64
    /// When the counter last went up; nil for one never incremented or reset.
    func lastIncrement(_ key: String) throws -> Date?
    /// Takes one off `key` when it is above 0 (an increment given back); otherwise nothing.
    func decrement(_ key: String) throws
    /// Sets the counter back to 0 (and ends its leases, without giving their counts back).
    func reset(_ key: String) throws
    /// Deletes the counters whose key starts with `prefix` that last went up before `cutoff`
    /// (throttles of clients and devices that went away); returns how many.
    @discardableResult
    func purgeCounters(prefix: String, updatedBefore cutoff: Date) throws -> Int
}

/// Counters whose counts may be held as leases that expire: the attempts a try being judged
/// holds, which a process that dies must not keep (in the database, shared by the nodes).
public protocol CounterLeaseStore: CounterStore {
    /// `increment`, held as a lease until `expiresAt`: a count for a try being judged. The try
    /// ends it with `endLease`; one whose process died never does, and its count comes back by
    /// itself once the lease has expired (at the counter's next `takeLease`, or when
    /// `reclaimExpiredLeases` runs on any node). Expired leases of `key` are reclaimed first.
    func takeLease(_ key: String, limit: Int64, now: Date, expiresAt: Date) throws -> Int64?
    /// Ends one lease of `key` (the one that expires first: leases of one counter stand for each
    /// other, and the rest then expire no sooner than the tries they stand for).
    /// `keepingCount`: the try failed and its count stays (when its lease was reclaimed or reset
    /// meanwhile, the count is taken again, beyond any limit: a failure is never free);
    /// otherwise its count goes back (when a lease was still there to end). Nil when a lease was
    /// ended; otherwise (none was left: reclaimed or reset meanwhile) the count after.
    @discardableResult
    func endLease(_ key: String, keepingCount: Bool, now: Date) throws -> Int64?
    /// The leases of `key` not expired at `now`: tries still being judged (on any node).
    func liveLeases(_ key: String, now: Date) throws -> Int
    /// Whether `key` has reached `limit` with no lease live at `now` holding any of it: read at
    /// one instant (one statement), so a reset and a take in between cannot make it seem so.
    func isSpent(_ key: String, limit: Int64, now: Date) throws -> Bool
    /// Ends every lease expired at `now`, giving each one's count back; returns how many.
    @discardableResult
    func reclaimExpiredLeases(now: Date) throws -> Int
}

/// Facts about the stored data itself (the id of the master key it is sealed with).
public protocol ServerMetadataStore: Sendable {
    /// The value stored under `name`, storing `value` first when there is none (atomically:
    /// of two nodes starting at once, both read the first one's value).
    func metadata(_ name: String, storingIfAbsent value: String) throws -> String
    /// Sets `name` to `value` only while it is `expected`; false otherwise.
    func replaceMetadata(_ name: String, expected: String, with value: String) throws -> Bool
}

/// Everything the server needs from its database at this stage.
/// Several store calls that must happen together or not at all: a state change and the audit
/// event that records it, a verdict and the attempt it used.
public protocol AtomicStore: Sendable {
    /// Runs `body` as one database transaction: every call that `body` makes, on this thread,
    /// to this store (through any service that holds it) commits when `body` returns and is
    /// rolled back when it throws. A call inside another `atomically` joins the outer one.
    ///
    /// The database's writer is held while `body` runs: keep it to store calls and cheap
    /// work (hashing, sealing, signing), never face analysis or network calls.
    func atomically<T>(_ body: () throws -> T) throws -> T
}

public typealias Store = DatabaseHealth & SingleUseTokenStore & CounterLeaseStore & AtomicStore

extension StoreError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .unavailable(let detail): "database unavailable: \(detail)"
        case .duplicate(let detail): "duplicate: \(detail)"
        case .migrationFailed(let detail): "migration failed: \(detail)"
        case .failure(let detail): "database error: \(detail)"
        }
    }
}
