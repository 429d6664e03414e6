import Foundation

/// A device bound to a user by its P-256 public key; it proves itself by signing nonces.
public struct Device: Equatable, Sendable {
    public var id: String
    public var userID: String
    public var name: String
    /// The device's public key as a JWK JSON object (EC, P-256).
    public var publicKeyJWK: String
    /// RFC 7638 thumbprint of the key; unique across devices.
    public var keyThumbprint: String
    public var createdAt: Date
    public var lastUsedAt: Date?
    /// When this device last logged in with the password too (for "password every N days").
    public var passwordVerifiedAt: Date?
    /// Revoked devices can no longer log in; the row stays for the audit trail.
    public var revokedAt: Date?
    /// The WebAuthn signature counter of the device's last sign-in assertion (0: the
    /// authenticator keeps none); an assertion must move it forward.
    public var signCount: UInt32
    /// What proved the device could join the user.
    public var boundBy: DeviceBinding
    /// The client address the binding came from.
    public var boundFrom: String?
    /// Until when the device is on probation: bound or confirmed without the approval of a
    /// device already bound (a registration code, a face match), it may not yet do what would
    /// let one bypassed proof take the account over (see `IdentityService.requireTrustedDevice`).
    public var probationUntil: Date?

    public init(id: String, userID: String, name: String, publicKeyJWK: String, keyThumbprint: String, createdAt: Date,
                lastUsedAt: Date? = nil, passwordVerifiedAt: Date? = nil, revokedAt: Date? = nil, signCount: UInt32 = 0,
                boundBy: DeviceBinding = .activation, boundFrom: String? = nil, probationUntil: Date? = nil) {
        self.id = id
        self.userID = userID
        self.name = name
        self.publicKeyJWK = publicKeyJWK
        self.keyThumbprint = keyThumbprint
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.passwordVerifiedAt = passwordVerifiedAt
        self.revokedAt = revokedAt
        self.signCount = signCount
        self.boundBy = boundBy
        self.boundFrom = boundFrom
        self.probationUntil = probationUntil
    }

    public var isRevoked: Bool { revokedAt != nil }

    /// Whether the device is still on probation at `now`.
    public func isOnProbation(at now: Date) -> Bool {
        probationUntil.map { $0 > now } ?? false
    }
}
