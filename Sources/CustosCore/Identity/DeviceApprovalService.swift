import CustosAPI
import Foundation

/// What a new device holds while it waits to be approved: the secret it claims with, and the
/// number it shows for the user to type on a bound device.
public struct DeviceApprovalTicket: Equatable, Sendable {
    public var requestToken: String
    public var number: Int
    public var expiresAt: Date
}

/// New devices join by the approval of a device already bound to the user, and every binding is
/// told to the user's devices.
///
/// The new device asks (`request`): the server sends the user's devices a notification with
/// number matching, whose `approve` action demands a bound device's signature (level 3) and
/// whose number the new device shows; the user types it on a bound device and signs. The new
/// device then claims (`claim`) with the ticket's secret: once, and only after that approval,
/// it is bound (`DeviceBinding.deviceApproval`, the approving device in the audit event) and
/// gets a session. A wrong number, a denial or the time running out ends the request.
///
/// For a user id that does not exist, or a user who cannot sign in, the answer is the same
/// ticket, which no one can approve: nothing tells a stranger which users exist.
public final class DeviceApprovalService: Sendable {
    /// The sender of approval requests (no API key has this id, so none reads them).
    public static let approvalSender = "custos:device-approval"
    /// The sender of "a device was bound" notices.
    public static let noticeSender = "custos:device-notice"
    static let purpose = "device_approval"
    /// How long a request waits for the user.
    public static let lifetime: TimeInterval = 300

    let identity: IdentityService
    let notifications: NotificationService
    var store: any IdentityService.Storage { identity.store }

    public init(identity: IdentityService, notifications: NotificationService) {
        self.identity = identity
        self.notifications = notifications
    }

    /// What the ticket's stored token carries back to the claim.
    private struct Pending: Codable {
        var notificationID: String?
        var name: String
        var publicKeyJWK: String
        var keyThumbprint: String
        var client: String?
    }

    /// A new device asks the user's bound devices to let it join. Requests are counted per
    /// client address (`LoginThrottle`, per user and in all: 429 once spent, for known and
    /// unknown users alike). When `NotificationPolicy.maximumPendingPerUser` requests already
    /// wait for the user, the oldest ends (expired) to make room: strangers' requests can
    /// neither fill the user's slots nor keep the user's own new device out.
    public func request(userID: String, deviceName: String, deviceKey: DevicePublicKey, client: String?) throws -> DeviceApprovalTicket {
        try InputRules.checkUserID(userID)
        let name = try InputRules.checkName(deviceName, field: "device_name")
        let thumbprint = try identity.keys.thumbprint(of: deviceKey)
        let now = identity.clock.now()
        let throttleKey = "approval:" + userID
        if let wait = try identity.throttle.retryAfter(deviceID: throttleKey, client: client, now: now) {
            throw IdentityError.throttled(retryAfter: Int(wait.rounded(.up)))
        }
        _ = try identity.throttle.recordFailure(deviceID: throttleKey, client: client, now: now)
        let token = "da_" + IdentityService.token(identity.random, bytes: 32)
        var pending = Pending(notificationID: nil, name: name, publicKeyJWK: deviceKey.jwkJSON, keyThumbprint: thumbprint, client: client)
        var number = 10 + identity.random.uniform(below: 90)
        var expiresAt = now.addingTimeInterval(Self.lifetime)
        if let user = try store.user(id: userID), user.status == .active, !user.isLocked(at: now),
           try store.devices(userID: userID).contains(where: { !$0.isRevoked && $0.boundBy.isConfirmed }) {
            let from = client.map { " from \($0)" } ?? ""
            try makeRoom(userID: userID, now: now)
            let notification = try notifications.create(NotificationDraft(
                userID: userID, subject: "A new device asks to join your account",
                message: "“\(name)” asks to be bound to your account\(from). If it is yours, type the number it shows and approve; if not, deny.",
                actions: [NotificationAction(label: "Approve", action: "approve", authLevel: .deviceSignature),
                          NotificationAction(label: "Deny", action: "deny", authLevel: .none)],
                lifetime: Self.lifetime, numberMatching: true), sender: Self.approvalSender, limitedPerSender: false)
            pending.notificationID = notification.id
            number = notification.number ?? number
            expiresAt = notification.expiresAt
        }
        try store.issue(SingleUseToken(purpose: Self.purpose, digest: identity.digester.digest(token), subject: userID,
                                       payload: try JSONEncoder().encode(pending), expiresAt: expiresAt))
        return DeviceApprovalTicket(requestToken: token, number: number, expiresAt: expiresAt)
    }

    /// Ends the oldest approval requests waiting for the user until one more fits.
    private func makeRoom(userID: String, now: Date) throws {
        let waiting = try notifications.store.notifications(userID: userID, open: true, now: now, limit: 100)
            .filter { $0.apiKeyID == Self.approvalSender }
        for oldest in waiting.reversed().prefix(max(0, waiting.count - notifications.policy.maximumPendingPerUser + 1)) {
            _ = try notifications.expire(oldest)
        }
    }

    /// The new device claims its binding: `approvalPending` while the user has not answered;
    /// once approved by a bound device, the device is bound and a session opened (once: the
    /// ticket is spent); denied, failed or expired, `approvalDenied`.
    public func claim(requestToken: String) throws -> AuthenticationOutcome {
        try InputRules.checkToken(requestToken, field: "request_token")
        let digest = identity.digester.digest(requestToken)
        let now = identity.clock.now()
        guard let ticket = try store.peek(purpose: Self.purpose, digest: digest, now: now),
              let pending = try? JSONDecoder().decode(Pending.self, from: ticket.payload) else {
            throw IdentityError.approvalDenied("the request is unknown, used or expired")
        }
        guard let notificationID = pending.notificationID else { throw IdentityError.approvalPending }
        let (notification, _) = try notifications.result(id: notificationID)
        switch notification.status {
        case .pending:
            throw IdentityError.approvalPending
        case .answered where notification.chosenAction == "approve" && notification.achievedLevel == .deviceSignature:
            break
        default:
            _ = try store.consume(purpose: Self.purpose, digest: digest, now: now)
            let why = notification.status == .answered ? "the user denied it" : "the request \(notification.status.rawValue)"
            throw IdentityError.approvalDenied(why)
        }
        let userID = ticket.subject
        guard let user = try store.user(id: userID), user.status == .active, !user.isLocked(at: now) else {
            _ = try store.consume(purpose: Self.purpose, digest: digest, now: now)
            throw IdentityError.approvalDenied("the user cannot sign in now")
        }
        let device = Device(id: identity.newID(), userID: userID, name: pending.name, publicKeyJWK: pending.publicKeyJWK,
                            keyThumbprint: pending.keyThumbprint, createdAt: now, lastUsedAt: now, boundBy: .deviceApproval,
                            boundFrom: pending.client)
        let (bound, session, token) = try store.atomically { () -> (Device, Session, String) in
            guard try store.consume(purpose: Self.purpose, digest: digest, now: now) != nil else {
                throw IdentityError.approvalDenied("the request was used")
            }
            let bound = try identity.bind(device, confirming: true, details: ["approved_by": notification.answeredBy ?? "-",
                                                                              "notification_uuid": notification.id], now: now)
            try store.reset(IdentityService.passwordRegistrationKey(userID))
            let (session, token) = try identity.openSession(userID: userID, deviceID: bound.id, now: now)
            return (bound, session, token)
        }
        try announce(bound, except: notification.answeredBy)
        return AuthenticationOutcome(status: .success, userID: userID, attemptsLeft: Int(identity.policy.maximumAttempts), device: bound,
                                     session: session, sessionToken: token)
    }

    /// Tells the user's devices that `device` was bound (a notice with one `ok` action): by
    /// which proof, from which address. `except`: the device that approved it already knows.
    public func announce(_ device: Device, except approver: String? = nil) throws {
        let others = try store.devices(userID: device.userID).filter {
            !$0.isRevoked && $0.id != device.id && $0.id != approver
        }
        guard !others.isEmpty else { return }
        let how = switch device.boundBy {
        case .registrationCode: "with a registration code"
        case .password: "with the password alone"
        case .deviceApproval: "approved on another of your devices"
        case .passkey: "as a passkey"
        case .faceMatch: "with a match of your face"
        case .activation, .unrecorded: "at activation"
        }
        let from = device.boundFrom.map { " from \($0)" } ?? ""
        do {
            _ = try notifications.create(NotificationDraft(
                userID: device.userID, subject: "A device was bound to your account",
                message: "“\(device.name)” was bound \(how)\(from). If it was not you, unbind it from your devices and change your password.",
                actions: [NotificationAction(label: "OK", action: "ok", authLevel: .none)],
                lifetime: notifications.policy.maximumLifetime), sender: Self.noticeSender, limitedPerSender: false)
        } catch let error as StepUpError where error.kind == .tooMany {
            // Five notices already wait unread: the devices list and the audit trail still say it.
        }
    }
}
