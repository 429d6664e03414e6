import CustosAPI
import CustosCore
import CustosHTTP
import Foundation
/// Domain values → wire types.
enum WireMapping {
    static func user(_ user: User, now: Date) -> UserInfo {
        UserInfo(userID: user.id, status: user.status.rawValue, createdAt: user.createdAt, locked: user.isLocked(at: now),
                 lockedUntil: user.isLocked(at: now) ? user.lockedUntil : nil, passwordChangedAt: user.passwordChangedAt,
                 passwordMustChange: user.passwordMustChange)
    }

    static func device(_ device: Device) -> DeviceInfo {
        DeviceInfo(deviceID: device.id, userID: device.userID, name: device.name, keyThumbprint: device.keyThumbprint,
                   createdAt: device.createdAt, lastUsedAt: device.lastUsedAt, revokedAt: device.revokedAt,
                   keyKind: device.boundBy == .passkey ? "passkey" : "device_key", boundBy: device.boundBy.rawValue, boundFrom: device.boundFrom,
                   probationUntil: device.probationUntil)
    }

    static func session(_ session: Session, token: String?, policy: IdentityPolicy) -> SessionInfo {
        SessionInfo(sessionID: session.id, token: token, deviceID: session.deviceID, createdAt: session.createdAt,
                    expiresAt: session.expiresAt, idleTimeoutSeconds: Int(policy.sessionIdleTimeout))
    }

    static func apiKey(_ key: APIKey, secret: String? = nil) -> APIKeyInfo {
        APIKeyInfo(id: key.id, scope: key.scope.rawValue, label: key.label, createdAt: key.createdAt, revokedAt: key.revokedAt, key: secret)
    }

    static func activation(_ code: ActivationCode) -> ActivationCodeInfo {
        ActivationCodeInfo(userID: code.userID, activationCode: code.code, expiresAt: code.expiresAt)
    }

    static func outcome(_ outcome: AuthenticationOutcome, policy: IdentityPolicy) -> AuthenticationResult {
        AuthenticationResult(statusCode: outcome.status, statusMessage: outcome.message, userID: outcome.userID,
                             attemptsLeft: outcome.attemptsLeft, deviceID: outcome.device?.id,
                             session: outcome.session.map { Self.session($0, token: outcome.sessionToken, policy: policy) },
                             passwordChangeToken: outcome.passwordChangeToken)
    }
}

extension Response {
    /// A JSON answer in the wire conventions (ISO 8601 dates, sorted keys).
    static func wire<T: Encodable>(_ value: T, status: Int = 200) throws -> Response {
        .json(raw: try WireJSON.encoder().encode(value), status: status)
    }
}

extension Request {
    /// Decodes a JSON body in the wire conventions, refusing names a strict type does not know.
    func wire<T: Decodable>(_ type: T.Type) throws -> T {
        try decodeJSON(type, decoder: WireJSON.requestDecoder())
    }
}
