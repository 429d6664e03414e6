import Foundation

extension CIBARequest {
    /// Whether what the user's approval of this request rests on still stands: the request not
    /// revoked, its user active and unlocked with the password they had when they answered, and
    /// the device that answered still bound. Read at every use (the token request, userinfo,
    /// introspection), so a revocation on any node ends the tokens at once, and a request
    /// approved before one yields none.
    func approvalStands(in store: any NotificationStore & UserStore & DeviceStore, now: Date) throws -> Bool {
        guard revokedAt == nil, let notification = try store.notification(id: notificationID),
              let user = try store.user(id: notification.userID), user.status == .active, !user.isLocked(at: now) else { return false }
        if let changed = user.passwordChangedAt, let answeredAt = notification.answeredAt, changed > answeredAt { return false }
        if let deviceID = notification.answeredBy {
            guard let device = try store.device(id: deviceID), device.userID == user.id, !device.isRevoked else { return false }
        }
        return true
    }
}
