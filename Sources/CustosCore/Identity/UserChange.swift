import Foundation

/// A write to some fields of a user, applied by the store in one statement so that
/// concurrent requests changing other fields (an administrator disabling the user while a
/// login fails, a password change while another device locks the user) never undo each other.
public enum UserChange: Sendable, Equatable {
    /// First activation: the password is set and a user pending activation becomes active.
    case activate(passwordHash: String, at: Date)
    case password(hash: String, at: Date)
    case disable
    /// A disabled user becomes active again, or pending activation when it has no password.
    case enable
    /// Locked until the given time; the lock count (which lengthens later locks) grows by one.
    case lock(until: Date)
    case unlock
    /// The password must change at the next password check (110); a new password clears it.
    /// Only an active user (one with a password) changes.
    case expirePassword
    /// Back to pending activation: no password (its change time set to `at`, so nothing signed in
    /// before outlives it), no lock. A disabled user stays as it is.
    case reset(at: Date)
}
