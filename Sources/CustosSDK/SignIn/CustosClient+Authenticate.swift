import CustosAPI
import Foundation

/// What the app asks the user for when `authenticate` must register this device first.
public struct SignInCredentials: Sendable, Equatable {
    public var userID: String
    public var password: String
    /// The name this device gets in the user's device list.
    public var deviceName: String

    public init(userID: String, password: String, deviceName: String) {
        self.userID = userID
        self.password = password
        self.deviceName = deviceName
    }
}

extension CustosClient {
    /// `authenticate`: the bound device's sign-in when this device is bound; otherwise the
    /// fallback — the app asks the user (`credentials`; nil is `.passwordPromptDismissed`, 908), the password
    /// binds this device to the user (`registerDevice`), and the bound sign-in follows. Only
    /// `.unknownUser` falls back: a declined, timed-out or denied sign-in is thrown as it is.
    /// A wrong password is thrown as `credentials_rejected` (`longErrorCode` 401; the server
    /// throttles them per user and address, then answers 429 `too_many_attempts`, and never
    /// locks the user); 110 when the password expired (nothing is bound: the user changes the
    /// password from a bound device, then signs in here again).
    public func authenticate(_ request: BoundUserAuthenticationRequest,
                             credentials: @escaping @Sendable () async -> SignInCredentials?) async throws -> AuthorizationResponse {
        do {
            return try await authenticateBoundUser(request)
        } catch let error as CustosError where error == .unknownUser {
            guard let given = await credentials() else { throw CustosError.passwordPromptDismissed }
            let result = try await registerDevice(userID: given.userID, password: given.password, deviceName: given.deviceName)
            guard result.statusCode.isSuccess else {
                throw CustosError.server(status: 401, code: "credentials_rejected", message: result.statusMessage,
                                         contractStatus: result.statusCode.rawValue)
            }
            return try await authenticateBoundUser(request)
        }
    }

    /// `authenticate` for callers that use completion handlers.
    public func authenticate(_ request: BoundUserAuthenticationRequest, credentials: @escaping @Sendable () async -> SignInCredentials?,
                             completion: @escaping @Sendable (AuthorizationResponse?, CustosError?) -> Void) {
        Task {
            do { completion(try await authenticate(request, credentials: credentials), nil) } catch { completion(nil, CustosError(error)) }
        }
    }

    /// Binds this device to an active user with the password (a new key in the key store, kept
    /// only once the server accepted it) and opens a session; the answer's `statusCode` is 100,
    /// 401 with `attemptsLeft` (per user and address: the user is never locked by this), or 110.
    /// Emits `onUserLoggedIn`.
    public func registerDevice(userID: String, password: String, deviceName: String) async throws -> AuthenticationResult {
        try await register(userID: userID, deviceName: deviceName) { key in
            RegisterDeviceRequest(userID: userID, password: password, deviceName: deviceName, devicePublicKey: key)
        }
    }

    /// Binds this device to an active user with a registration code (a "registration link" the
    /// relying party sent), outside any login.
    public func registerDevice(userID: String, registrationCode: String, deviceName: String) async throws -> AuthenticationResult {
        try await register(userID: userID, deviceName: deviceName) { key in
            RegisterDeviceRequest(userID: userID, registrationCode: registrationCode, deviceName: deviceName, devicePublicKey: key)
        }
    }

    private func register(userID: String, deviceName: String,
                          request: (PublicKeyJWK) -> RegisterDeviceRequest) async throws -> AuthenticationResult {
        try await emitting(.onUserLoggedIn, { AuthenticationEvent(userID: userID, error: $0, response: $1) }) {
            let keyStore = try requireKeyStore()
            let staging = account(userID) + "|registering"
            let key = try keyStore.createKey(for: staging)
            let result: AuthenticationResult
            do {
                result = try await transport.call(Endpoints.registerDevice, body: request(key.publicKey))
            } catch {
                try? keyStore.deleteKey(for: staging)
                throw error
            }
            // A device id means the server bound the key (also with an expired password).
            guard let deviceID = result.deviceID else {
                try? keyStore.deleteKey(for: staging)
                return result
            }
            try keyStore.moveKey(from: staging, to: account(userID))
            keepBinding(userID: userID, deviceID: deviceID, in: keyStore)
            state.withLock { state in
                state.userID = userID
                state.deviceID = deviceID
                state.sessionToken = result.session?.token
            }
            return result
        }
    }
}
