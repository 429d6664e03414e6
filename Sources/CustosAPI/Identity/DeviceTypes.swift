import Foundation

/// A P-256 public key as a JWK (RFC 7517): `kty` "EC", `crv` "P-256", `x`, `y` base64url.
public struct PublicKeyJWK: Codable, Equatable, Sendable {
    public var kty: String
    public var crv: String
    public var x: String
    public var y: String

    public init(kty: String = "EC", crv: String = "P-256", x: String, y: String) {
        self.kty = kty
        self.crv = crv
        self.x = x
        self.y = y
    }
}

/// `POST /v1/activate`: bind this device to the user with the one-time code.
public struct ActivateRequest: Codable, Equatable, Sendable {
    public var userID: String
    public var activationCode: String
    public var password: String
    public var deviceName: String
    public var devicePublicKey: PublicKeyJWK

    enum CodingKeys: String, CodingKey {
        case password
        case userID = "user_id"
        case activationCode = "activation_code"
        case deviceName = "device_name"
        case devicePublicKey = "device_public_key"
    }

    public init(userID: String, activationCode: String, password: String, deviceName: String, devicePublicKey: PublicKeyJWK) {
        self.userID = userID
        self.activationCode = activationCode
        self.password = password
        self.deviceName = deviceName
        self.devicePublicKey = devicePublicKey
    }
}

/// `POST /v1/login/challenge`.
public struct LoginChallengeRequest: Codable, Equatable, Sendable {
    public var userID: String
    public var deviceID: String
    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case deviceID = "device_id"
    }
    public init(userID: String, deviceID: String) {
        self.userID = userID
        self.deviceID = deviceID
    }
}

/// A single-use nonce the device signs; valid for a minute.
public struct LoginChallenge: Codable, Equatable, Sendable {
    public var nonce: String
    public var expiresAt: Date
    /// Whether the server will ask for the password with this login.
    public var passwordRequired: Bool

    enum CodingKeys: String, CodingKey {
        case nonce
        case expiresAt = "expires_at"
        case passwordRequired = "password_required"
    }

    public init(nonce: String, expiresAt: Date, passwordRequired: Bool) {
        self.nonce = nonce
        self.expiresAt = expiresAt
        self.passwordRequired = passwordRequired
    }
}

/// `POST /v1/login`: the device's ES256 signature (raw r‖s, base64url) over the nonce's
/// UTF-8 bytes, plus the password when the policy asks for it.
public struct LoginRequest: Codable, Equatable, Sendable {
    public var userID: String
    public var deviceID: String
    public var nonce: String
    public var signature: String
    public var password: String?

    enum CodingKeys: String, CodingKey {
        case nonce, signature, password
        case userID = "user_id"
        case deviceID = "device_id"
    }

    public init(userID: String, deviceID: String, nonce: String, signature: String, password: String? = nil) {
        self.userID = userID
        self.deviceID = deviceID
        self.nonce = nonce
        self.signature = signature
        self.password = password
    }
}

/// `POST /v1/password/change`: with a session (`Authorization: Bearer`) or with the
/// `password_change_token` a 110 answer gave.
public struct ChangePasswordRequest: Codable, Equatable, Sendable {
    public var userID: String
    public var oldPassword: String
    public var newPassword: String
    public var passwordChangeToken: String?

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case oldPassword = "old_password"
        case newPassword = "new_password"
        case passwordChangeToken = "password_change_token"
    }

    public init(userID: String, oldPassword: String, newPassword: String, passwordChangeToken: String? = nil) {
        self.userID = userID
        self.oldPassword = oldPassword
        self.newPassword = newPassword
        self.passwordChangeToken = passwordChangeToken
    }
}

/// A bearer session.
public struct SessionInfo: Codable, Equatable, Sendable {
    public var sessionID: String
    /// The bearer token; present only when the session is created.
    public var token: String?
    public var deviceID: String
    public var createdAt: Date
    public var expiresAt: Date
    public var idleTimeoutSeconds: Int

    enum CodingKeys: String, CodingKey {
        case token
        case sessionID = "session_id"
        case deviceID = "device_id"
        case createdAt = "created_at"
        case expiresAt = "expires_at"
        case idleTimeoutSeconds = "idle_timeout_seconds"
    }

    public init(sessionID: String, token: String?, deviceID: String, createdAt: Date, expiresAt: Date, idleTimeoutSeconds: Int) {
        self.sessionID = sessionID
        self.token = token
        self.deviceID = deviceID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.idleTimeoutSeconds = idleTimeoutSeconds
    }
}

public struct SessionList: Codable, Equatable, Sendable {
    public var sessions: [SessionInfo]
    public init(sessions: [SessionInfo]) { self.sessions = sessions }
}

/// The answer to activation, login and password change, in the three tiers of the
/// contract: transport errors come as HTTP errors; this is the server status
/// (`status_code` 100 success, 110 password expired, 153 attempts exhausted — the user is
/// locked —, 401 credentials not accepted) and the payload.
public struct AuthenticationResult: Codable, Equatable, Sendable {
    public var statusCode: StatusCode
    public var statusMessage: String
    public var userID: String
    public var attemptsLeft: Int
    public var deviceID: String?
    public var session: SessionInfo?
    /// With status 110: lets the client change the password (and nothing else), once.
    public var passwordChangeToken: String?

    enum CodingKeys: String, CodingKey {
        case session
        case statusCode = "status_code"
        case statusMessage = "status_message"
        case userID = "user_id"
        case attemptsLeft = "attempts_left"
        case deviceID = "device_id"
        case passwordChangeToken = "password_change_token"
    }

    public init(statusCode: StatusCode, statusMessage: String, userID: String, attemptsLeft: Int, deviceID: String? = nil,
                session: SessionInfo? = nil, passwordChangeToken: String? = nil) {
        self.statusCode = statusCode
        self.statusMessage = statusMessage
        self.userID = userID
        self.attemptsLeft = attemptsLeft
        self.deviceID = deviceID
        self.session = session
        self.passwordChangeToken = passwordChangeToken
    }
}

/// `POST /v1/devices/register`: binds a new device to an active user, proved by the password
/// (a sign-in's fallback on an unbound device) or by a registration code — exactly one.
public struct RegisterDeviceRequest: Codable, Equatable, Sendable {
    public var userID: String
    public var password: String?
    public var registrationCode: String?
    public var deviceName: String
    public var devicePublicKey: PublicKeyJWK

    enum CodingKeys: String, CodingKey {
        case password
        case userID = "user_id"
        case registrationCode = "registration_code"
        case deviceName = "device_name"
        case devicePublicKey = "device_public_key"
    }

    public init(userID: String, password: String? = nil, registrationCode: String? = nil, deviceName: String, devicePublicKey: PublicKeyJWK) {
        self.userID = userID
        self.password = password
        self.registrationCode = registrationCode
        self.deviceName = deviceName
        self.devicePublicKey = devicePublicKey
    }
}

/// A new device asks the user's bound devices to approve it (number matching on a bound device).
public struct DeviceApprovalRequestBody: Codable, Equatable, Sendable {
    public var userID: String
    public var deviceName: String
    public var devicePublicKey: PublicKeyJWK
    /// What proves the requester knows the user: exactly one of the user's password and a
    /// registration code the relying party issued. Without it nothing reaches the user.
    public var password: String?
    public var registrationCode: String?

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case deviceName = "device_name"
        case devicePublicKey = "device_public_key"
        case password
        case registrationCode = "registration_code"
    }

    public init(userID: String, deviceName: String, devicePublicKey: PublicKeyJWK, password: String? = nil, registrationCode: String? = nil) {
        self.userID = userID
        self.deviceName = deviceName
        self.devicePublicKey = devicePublicKey
        self.password = password
        self.registrationCode = registrationCode
    }
}

/// What the new device holds while it waits: the secret it claims with (shown once, never
/// logged) and the number it shows for the user to type on a bound device.
public struct DeviceApprovalTicketInfo: Codable, Equatable, Sendable {
    public var requestToken: String
    public var number: Int
    public var expiresAt: Date

    enum CodingKeys: String, CodingKey {
        case number
        case requestToken = "request_token"
        case expiresAt = "expires_at"
    }

    public init(requestToken: String, number: Int, expiresAt: Date) {
        self.requestToken = requestToken
        self.number = number
        self.expiresAt = expiresAt
    }
}

/// The new device claims its binding once a bound device approved it.
public struct DeviceApprovalClaim: Codable, Equatable, Sendable {
    public var requestToken: String

    enum CodingKeys: String, CodingKey {
        case requestToken = "request_token"
    }

    public init(requestToken: String) { self.requestToken = requestToken }
}
