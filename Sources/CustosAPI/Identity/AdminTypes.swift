import Foundation

/// `POST /v1/admin/api-keys`.
public struct CreateAPIKeyRequest: Codable, Equatable, Sendable {
    /// `admin` or `rp`.
    public var scope: String
    public var label: String

    public init(scope: String, label: String) {
        self.scope = scope
        self.label = label
    }
}

/// An API key as listed; `key` is present only in the answer that created it.
public struct APIKeyInfo: Codable, Equatable, Sendable {
    public var id: String
    public var scope: String
    public var label: String
    public var createdAt: Date
    public var revokedAt: Date?
    /// The secret, shown once.
    public var key: String?

    enum CodingKeys: String, CodingKey {
        case id, scope, label, key
        case createdAt = "created_at"
        case revokedAt = "revoked_at"
    }

    public init(id: String, scope: String, label: String, createdAt: Date, revokedAt: Date? = nil, key: String? = nil) {
        self.id = id
        self.scope = scope
        self.label = label
        self.createdAt = createdAt
        self.revokedAt = revokedAt
        self.key = key
    }
}

public struct APIKeyList: Codable, Equatable, Sendable {
    public var apiKeys: [APIKeyInfo]
    enum CodingKeys: String, CodingKey { case apiKeys = "api_keys" }
    public init(apiKeys: [APIKeyInfo]) { self.apiKeys = apiKeys }
}

/// `POST /v1/users`.
public struct CreateUserRequest: Codable, Equatable, Sendable {
    public var userID: String
    enum CodingKeys: String, CodingKey { case userID = "user_id" }
    public init(userID: String) { self.userID = userID }
}

/// A user as the relying party sees it.
public struct UserInfo: Codable, Equatable, Sendable {
    public var userID: String
    /// `pending_activation`, `active` or `disabled`.
    public var status: String
    public var createdAt: Date
    public var locked: Bool
    public var lockedUntil: Date?
    public var passwordChangedAt: Date?
    /// The password was expired (`POST /v1/users/{id}/expire-password`): the next password
    /// check answers 110 until the user sets a new one.
    public var passwordMustChange: Bool?

    enum CodingKeys: String, CodingKey {
        case status, locked
        case userID = "user_id"
        case createdAt = "created_at"
        case lockedUntil = "locked_until"
        case passwordChangedAt = "password_changed_at"
        case passwordMustChange = "password_must_change"
    }

    public init(userID: String, status: String, createdAt: Date, locked: Bool, lockedUntil: Date?, passwordChangedAt: Date?,
                passwordMustChange: Bool? = nil) {
        self.passwordMustChange = passwordMustChange
        self.userID = userID
        self.status = status
        self.createdAt = createdAt
        self.locked = locked
        self.lockedUntil = lockedUntil
        self.passwordChangedAt = passwordChangedAt
    }
}

/// A one-time activation code for a user; shown once.
public struct ActivationCodeInfo: Codable, Equatable, Sendable {
    public var userID: String
    public var activationCode: String
    public var expiresAt: Date

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case activationCode = "activation_code"
        case expiresAt = "expires_at"
    }

    public init(userID: String, activationCode: String, expiresAt: Date) {
        self.userID = userID
        self.activationCode = activationCode
        self.expiresAt = expiresAt
    }
}

/// `POST /v1/users` answer: the user and its first activation code.
public struct CreatedUser: Codable, Equatable, Sendable {
    public var user: UserInfo
    public var activation: ActivationCodeInfo
    public init(user: UserInfo, activation: ActivationCodeInfo) {
        self.user = user
        self.activation = activation
    }
}

public struct UserList: Codable, Equatable, Sendable {
    public var users: [UserInfo]
    /// Pass as `after` for the next page. Present whenever the page is full (the next page may
    /// then be empty); absent on a shorter page.
    public var nextAfter: String?
    enum CodingKeys: String, CodingKey {
        case users
        case nextAfter = "next_after"
    }
    public init(users: [UserInfo], nextAfter: String?) {
        self.users = users
        self.nextAfter = nextAfter
    }
}

public struct DeviceInfo: Codable, Equatable, Sendable {
    public var deviceID: String
    public var userID: String
    public var name: String
    public var keyThumbprint: String
    public var createdAt: Date
    public var lastUsedAt: Date?
    public var revokedAt: Date?
    /// `device_key` (a Custos app's or browser's key) or `passkey`.
    public var keyKind: String?
    /// The proof it was bound with: `activation`, `registration_code`, `password`,
    /// `device_approval`, `passkey` or `unrecorded`; `password` answers at the password's level only.
    public var boundBy: String?
    /// The client address it was bound from.
    public var boundFrom: String?
    /// Until when it is on probation (bound or confirmed without another bound device's
    /// approval): no password change, no unbinding or approving devices, no template change.
    public var probationUntil: Date?

    enum CodingKeys: String, CodingKey {
        case name
        case deviceID = "device_id"
        case userID = "user_id"
        case keyThumbprint = "key_thumbprint"
        case createdAt = "created_at"
        case lastUsedAt = "last_used_at"
        case revokedAt = "revoked_at"
        case keyKind = "key_kind"
        case boundBy = "bound_by"
        case boundFrom = "bound_from"
        case probationUntil = "probation_until"
    }

    public init(deviceID: String, userID: String, name: String, keyThumbprint: String, createdAt: Date, lastUsedAt: Date?, revokedAt: Date?,
                keyKind: String? = nil, boundBy: String? = nil, boundFrom: String? = nil, probationUntil: Date? = nil) {
        self.probationUntil = probationUntil
        self.keyKind = keyKind
        self.boundBy = boundBy
        self.boundFrom = boundFrom
        self.deviceID = deviceID
        self.userID = userID
        self.name = name
        self.keyThumbprint = keyThumbprint
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.revokedAt = revokedAt
    }
}

public struct DeviceList: Codable, Equatable, Sendable {
    public var devices: [DeviceInfo]
    public init(devices: [DeviceInfo]) { self.devices = devices }
}

/// A signed-in user unbinding one of their devices: the password again, so that a stolen
/// session alone cannot unbind the user's real devices.
public struct DeviceRevocationRequest: Codable, Equatable, Sendable {
    public var password: String
    public init(password: String) { self.password = password }
}

/// A registration code ("registration link") for a new device of an active user, shown once.
public struct RegistrationCodeInfo: Codable, Equatable, Sendable {
    public var userID: String
    public var registrationCode: String
    public var expiresAt: Date

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case registrationCode = "registration_code"
        case expiresAt = "expires_at"
    }

    public init(userID: String, registrationCode: String, expiresAt: Date) {
        self.userID = userID
        self.registrationCode = registrationCode
        self.expiresAt = expiresAt
    }
}
