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
/// A request needs the user's password or a registration code: without one nothing reaches the
/// user, and a user id that does not exist answers as a wrong password does. A user who cannot
/// sign in, or has no confirmed device, gets a ticket no one can approve.
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

    /// A new device asks the user's bound devices to let it join, with a proof that the
    /// requester knows the user: the password (the one phished password is not enough to bind,
    /// since a bound device must still approve) or a registration code the relying party issued.
    ///
    /// Without a valid proof nothing reaches the user (401 `approval_proof_rejected`), in the
    /// same time and answer for a user id that does not exist: one Argon2id verification each.
    /// A wrong password counts as a password registration's does (per user from every address,
    /// closing the password way for that user, never locking the user), and every request counts
    /// per client address (`LoginThrottle`, 429). A proved request counts per user whatever the
    /// address (`policy.deviceProofAttempts` within the throttle's window, 429 past them), and
    /// one that finds `NotificationPolicy.maximumPendingPerUser` requests waiting is refused:
    /// no one evicts the user's own.
    ///
    /// The prompt shows what the server knows (when, and from which address) and the name the
    /// requester chose only as a short quoted label without digits (`promptLabel`): the number
    /// to type is drawn by the server and never appears in anything the requester wrote.
    public func request(userID: String, deviceName: String, deviceKey: DevicePublicKey, proof: DeviceRegistrationProof,
                        client: String?) throws -> DeviceApprovalTicket {
        try InputRules.checkUserID(userID)
        let name = try InputRules.checkName(deviceName, field: "device_name")
        let thumbprint = try identity.keys.thumbprint(of: deviceKey)
        let now = identity.clock.now()
        let throttleKey = "approval:" + userID
        if let wait = try identity.throttle.retryAfter(deviceID: throttleKey, client: client, now: now) {
            throw IdentityError.throttled(retryAfter: Int(wait.rounded(.up)))
        }
        _ = try identity.throttle.recordFailure(deviceID: throttleKey, client: client, now: now)
        let user = try identity.provesKnowledge(of: userID, proof, now: now)
        // A password the relying party expired (a suspected leak), or one aged out, asks no one.
        if case .password = proof, identity.policy.passwordExpired(user, at: now) { throw IdentityError.approvalProofRejected }
        if let wait = try identity.throttle.admitUserWide("approval|" + userID, limit: identity.policy.deviceProofAttempts, now: now) {
            throw IdentityError.throttled(retryAfter: Int(wait.rounded(.up)))
        }
        let token = "da_" + IdentityService.token(identity.random, bytes: 32)
        var pending = Pending(notificationID: nil, name: name, publicKeyJWK: deviceKey.jwkJSON, keyThumbprint: thumbprint, client: client)
        var number = 10 + identity.random.uniform(below: 90)
        var expiresAt = now.addingTimeInterval(Self.lifetime)
        if user.status == .active, !user.isLocked(at: now),
           try store.devices(userID: userID).contains(where: { !$0.isRevoked && $0.boundBy.isConfirmed }) {
            let waiting = try notifications.store.notifications(userID: userID, open: true, now: now, limit: 100)
                .filter { $0.apiKeyID == Self.approvalSender }
            guard waiting.count < notifications.policy.maximumPendingPerUser else {
                throw StepUpError.tooMany("for this user: \(waiting.count) device approval requests already wait; try again when they end")
            }
            // Spent only now, so that a request refused above burns no code.
            if case .registrationCode(let code) = proof { try identity.spendRegistrationCode(code, userID: userID, now: now) }
            let time = ISO8601DateFormatter.string(from: now, timeZone: TimeZone(identifier: "UTC") ?? .current,
                                                   formatOptions: [.withFullDate, .withTime, .withColonSeparatorInTime])
            let notification = try notifications.create(NotificationDraft(
                userID: userID, subject: "A new device asks to join your account",
                message: "At \(time) UTC, a device at \(client ?? "an unknown address") proved your password or a registration "
                    + "code and asked to be bound to your account. If you are setting up a new device right now, approve and type "
                    + "the number that device shows; if not, deny, and change your password. The device calls itself "
                    + "“\(Self.promptLabel(name))”.",
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

    /// The longest label a prompt shows of the name the requester chose.
    public static let promptLabelLength = 24

    /// The requester's device name as a prompt shows it: letters, spaces and `-'` only (no
    /// digits, so no number to type; no `.`, `:` or `!` to dress it as sentences), at most
    /// `promptLabelLength` characters, "device" when nothing is left.
    public static func promptLabel(_ name: String) -> String {
        let kept = name.unicodeScalars.map { scalar -> Character in
            CharacterSet.letters.contains(scalar) || "-'".unicodeScalars.contains(scalar) ? Character(scalar) : " "
        }
        let words = String(kept).split(separator: " ").joined(separator: " ")
        guard !words.isEmpty else { return "device" }
        return words.count > promptLabelLength ? String(words.prefix(promptLabelLength - 1)) + "…" : words
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
                            boundFrom: pending.client, probationUntil: identity.probationEnd(.deviceApproval, now: now))
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

    /// The action of a binding notice that unbinds the device it tells of.
    public static func unbindAction(_ deviceID: String) -> String { unbindPrefix + deviceID }

    /// The device a binding notice's action unbinds; nil for any other action.
    public static func unboundDevice(byAction action: String) -> String? {
        action.hasPrefix(unbindPrefix) ? String(action.dropFirst(unbindPrefix.count)) : nil
    }

    private static let unbindPrefix = "unbind."

    /// Tells the user's devices that `device` was bound or confirmed: by which proof, from
    /// which address, and until when it is on probation. The notice has two actions, both
    /// answered with a bound device's signature (level 3) from a device past its probation, so
    /// that neither a stolen session nor a second new device can acknowledge it away: `ok`, and
    /// `unbind.<device id>`, which unbinds it at once. The device it tells of cannot answer it.
    /// `except`: the device that approved it already knows.
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
        let probation = device.probationUntil.map {
            " Until \(ISO8601DateFormatter().string(from: $0)) it cannot change your password, unbind or approve devices or change your face template."
        } ?? ""
        do {
            _ = try notifications.create(NotificationDraft(
                userID: device.userID, subject: "A device was bound to your account",
                message: "“\(Self.promptLabel(device.name))” was bound \(how)\(from).\(probation) If it was not you, unbind it here "
                    + "and change your password.",
                actions: [NotificationAction(label: "OK", action: "ok", authLevel: .deviceSignature),
                          NotificationAction(label: "Not me: unbind it", action: Self.unbindAction(device.id), authLevel: .deviceSignature)],
                lifetime: notifications.policy.maximumLifetime), sender: Self.noticeSender, limitedPerSender: false)
        } catch let error as StepUpError where error.kind == .throttled {
            // Five notices already wait unread: the devices list and the audit trail still say it.
        }
    }
}
