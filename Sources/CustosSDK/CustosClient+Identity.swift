import CustosAPI
import Foundation

/// The signed-in state the client keeps after activation or login.
public struct SessionState: Sendable, Equatable {
    public var userID: String?
    public var deviceID: String?
    /// The bearer token of the current session (secret).
    public var sessionToken: String?

    public init(userID: String? = nil, deviceID: String? = nil, sessionToken: String? = nil) {
        self.userID = userID
        self.deviceID = deviceID
        self.sessionToken = sessionToken
    }
}

extension CustosClient {
    /// The current signed-in state.
    public var session: SessionState { state.withLock { $0 } }

    /// Resumes a state saved earlier (e.g. by a command-line profile).
    public func restore(_ saved: SessionState) {
        state.withLock { $0 = saved }
    }

    /// Activates this device for the user with the one-time code: creates the device key,
    /// sets the password, binds the device and opens a session. Emits `onUserLoggedIn`, on
    /// failure too (with the error, which the call also throws).
    ///
    /// The new key replaces the device's old one (if any) only once the server has accepted
    /// it: a wrong or expired code, or a network failure, leaves the old key usable.
    public func activate(userID: String, activationCode: String, password: String, deviceName: String) async throws -> AuthenticationResult {
        try await emitting(.onUserLoggedIn, { AuthenticationEvent(userID: userID, error: $0, response: $1) }) {
            let keyStore = try requireKeyStore()
            let staging = account(userID) + "|activating"
            let key = try keyStore.createKey(for: staging)
            let result: AuthenticationResult
            do {
                result = try await transport.call(Endpoints.activate, body: ActivateRequest(
                    userID: userID, activationCode: activationCode, password: password, deviceName: deviceName, devicePublicKey: key.publicKey))
            } catch {
                try? keyStore.deleteKey(for: staging)
                throw error
            }
            if result.statusCode.isSuccess {
                try keyStore.moveKey(from: staging, to: account(userID))
                if let deviceID = result.deviceID { keepBinding(userID: result.userID, deviceID: deviceID, in: keyStore) }
            } else {
                try? keyStore.deleteKey(for: staging)
            }
            adopt(result)
            return result
        }
    }

    /// Logs in with this device's key (and the password when the server asks for it): asks
    /// for a nonce, signs it, and sends both. Check the result's `statusCode`: 100 success,
    /// 110 password expired (change it with `passwordChangeToken`), 153 attempts exhausted
    /// (also `onUserLoggedOff`), 401 credentials not accepted (`attemptsLeft` says how many
    /// remain). Emits `onUserLoggedIn`, on failure too.
    public func login(userID: String, deviceID: String, password: String?) async throws -> AuthenticationResult {
        try await emitting(.onUserLoggedIn, { AuthenticationEvent(userID: userID, error: $0, response: $1) }) {
            guard let key = try requireKeyStore().key(for: account(userID)) else {
                throw CustosError.invalidConfiguration("this device has no key for \(userID); activate it first")
            }
            let challenge = try await transport.call(Endpoints.loginChallenge, body: LoginChallengeRequest(userID: userID, deviceID: deviceID))
            let signature = try key.sign(Data(challenge.nonce.utf8)).base64URLEncodedString
            let result = try await transport.call(Endpoints.login, body: LoginRequest(
                userID: userID, deviceID: deviceID, nonce: challenge.nonce, signature: signature, password: password))
            if result.statusCode.isSuccess { keepBinding(userID: result.userID, deviceID: result.deviceID ?? deviceID, in: try requireKeyStore()) }
            adopt(result)
            return result
        }
    }

    /// Changes the password: within a session, or with the `passwordChangeToken` of a 110
    /// answer. Emits `onPasswordChanged`, on failure too.
    public func changePassword(userID: String, oldPassword: String, newPassword: String,
                               passwordChangeToken: String? = nil) async throws -> AuthenticationResult {
        let bearer = passwordChangeToken == nil ? session.sessionToken : nil
        return try await emitting(.onPasswordChanged, { AuthenticationEvent(userID: userID, error: $0, response: $1) }) {
            try await transport.call(Endpoints.changePassword, body: ChangePasswordRequest(
                userID: userID, oldPassword: oldPassword, newPassword: newPassword, passwordChangeToken: passwordChangeToken), bearer: bearer)
        }
    }

    /// Ends the current session on the server and forgets it. Emits `onUserLoggedOff` with
    /// status 100; when the server cannot be told, with the error instead (which the call
    /// also throws), and the session is kept so the app can try again. Without a session
    /// there is nothing to end: no request, no event.
    public func logout() async throws {
        let current = session
        guard let token = current.sessionToken else { return }
        let userID = current.userID ?? ""
        try await emitting(.onUserLoggedOff, { error, _ in
            LogoffInfo(userID: userID, statusCode: error == nil ? StatusCode.success : nil, error: error)
        }) {
            _ = try await transport.call(Endpoints.logout, bearer: token)
            state.withLock { $0.sessionToken = nil }
        }
    }

    /// The signed-in user's sessions.
    /// The signed-in user's devices, revoked ones included (with `revoked_at`).
    public func devices() async throws -> [DeviceInfo] {
        try await transport.call(Endpoints.myDevices, bearer: session.sessionToken).devices
    }

    /// Unbinds one of the user's devices (this one too) with the password again: status 100 when
    /// done, 401 with the attempts left for a wrong password, 153 when that was the last.
    /// Revoking this device also forgets its binding: it is then an unknown user to
    /// `authenticateBoundUser` until it is activated again.
    public func revokeDevice(_ deviceID: String, password: String) async throws -> AuthenticationResult {
        let result = try await transport.call(Endpoints.revokeMyDevice, deviceID, body: DeviceRevocationRequest(password: password),
                                              bearer: session.sessionToken)
        if result.statusCode.isSuccess, let keyStore = configuration.keyStore, let kept = try? keyStore.binding(for: server),
           kept.deviceID == deviceID {
            try keyStore.deleteBinding(for: server)
        }
        return result
    }

    public func sessions() async throws -> [SessionInfo] {
        let list = try await transport.call(Endpoints.sessions, bearer: session.sessionToken)
        return list.sessions
    }

    func adopt(_ result: AuthenticationResult) {
        guard result.statusCode.isSuccess else { return }
        state.withLock { state in
            state.userID = result.userID
            if let deviceID = result.deviceID { state.deviceID = deviceID }
            if let token = result.session?.token { state.sessionToken = token }
        }
    }

    func requireKeyStore() throws -> any DeviceKeyStore {
        guard let keyStore = configuration.keyStore else {
            throw CustosError.invalidConfiguration("no DeviceKeyStore configured")
        }
        return keyStore
    }

    /// Keys are per server and user.
    func account(_ userID: String) -> String {
        server + "|" + userID
    }

    /// This client's server, as bindings name it.
    var server: String { configuration.serverURL.absoluteString }

    /// Keeps the binding an activation, registration or login established beside the device
    /// key, so that a client started afresh (the app's next launch) signs the bound user in.
    /// An unreadable binding is written anew. Best effort: the server has bound the device and
    /// opened the session whether or not this could be written; the next login writes it again.
    func keepBinding(userID: String, deviceID: String, in keyStore: any DeviceKeyStore) {
        let binding = DeviceBinding(server: server, userID: userID, deviceID: deviceID)
        if (try? keyStore.binding(for: server)) != binding { try? keyStore.saveBinding(binding) }
    }
}
