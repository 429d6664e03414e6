/// What kind of failure a domain error is, in the terms the server answers with. Each kind is
/// one HTTP status, mapped in one place (`ErrorMapping` in CustosServer), so a new error type
/// says what it is and is answered accordingly: it cannot fall through to a 500 unnoticed.
public enum ErrorKind: Sendable, Hashable, CaseIterable {
    /// The request's form is wrong (400; the Shared Signals API's convention).
    case malformed
    /// A field's value is not acceptable (422).
    case invalidInput
    /// The credential is missing, wrong or expired (401).
    case unauthenticated
    /// The caller is known but may not do this (403).
    case forbidden
    /// Nothing of that id, or none the caller may see (404).
    case notFound
    /// The state does not allow it (409).
    case conflict
    /// Not decided yet: ask again after `retryAfterSeconds` (409, as RFC 8628's authorization_pending).
    case pending
    /// It was there and has ended (410).
    case gone
    /// Larger than allowed (413).
    case tooLarge
    /// A media type the endpoint does not take (415).
    case unsupportedMedia
    /// Locked after too many failures (423).
    case locked
    /// Too many requests or tries for now (429).
    case throttled
    /// A fault of the server's own, never the caller's: a generic 500, the detail in the log only.
    case `internal`
}

/// An error a domain service throws for its caller: what kind it is, a stable code and a plain
/// message (never a secret or biometric data).
public protocol DomainError: Error, Sendable {
    var kind: ErrorKind { get }
    var code: String { get }
    var message: String { get }
    /// Seconds after which the same request may succeed (`Retry-After`); nil when it would not.
    var retryAfterSeconds: Int? { get }
}

extension DomainError {
    public var retryAfterSeconds: Int? { nil }
}
