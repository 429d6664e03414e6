import CustosAPI
import Foundation
import Synchronization

extension CustosClient {
    /// `authenticateBoundUser`: signs the user in with the device bound to them and nothing
    /// else, or says exactly why not — never a fallback to another method.
    ///
    /// The device must be bound (activated) to a user: the client's signed-in user, else the
    /// binding its key store kept from the last activation or login on this server (so this
    /// works on a client created at app start); otherwise `.unknownUser`, without asking the
    /// server. The server answers a challenge for the
    /// authorization request; `configuration.localAuthentication` is asked (with the request's
    /// `showLoader`) and must approve within `timeout` (`.timeout`; declining is
    /// `.localAuthenticationCancelled`, 131); the device key then signs the challenge as a WebAuthn assertion (user
    /// present and verified) and the server answers the authorization code. A revoked device or
    /// a disabled or locked user is `.accessDenied`.
    public func authenticateBoundUser(_ request: BoundUserAuthenticationRequest) async throws -> AuthorizationResponse {
        guard let clientID = request.clientID ?? configuration.clientID else {
            throw CustosError.invalidConfiguration("set configuration.clientID (or the request's clientID) to sign in")
        }
        let verifier = request.usePKCE ? Self.randomToken(bytes: 32) : nil
        let nonce = Self.randomToken(bytes: 16)
        let state = Self.randomToken(bytes: 16)
        let code = try await signInWithBoundDevice(
            DeviceSignInRequest(deviceID: "", clientID: clientID, redirectURI: request.redirectURI, scope: request.scope, state: state, nonce: nonce,
                                codeChallenge: verifier.map { SDKCrypto.sha256(Data($0.utf8)).base64URLEncodedString },
                                codeChallengeMethod: verifier == nil ? nil : "S256", encrypted: request.encrypted ? true : nil),
            timeout: request.timeout, showLoader: request.showLoader)
        return AuthorizationResponse(code: code.code, state: state, redirectURI: code.redirectURI, issuer: code.iss, location: code.location,
                                     clientID: clientID, codeVerifier: verifier, nonce: nonce, encrypted: request.encrypted)
    }

    /// Approves a relying party's own authorization request (the URL its server built for
    /// `/oauth2/authorize`, with its state, nonce and PKCE challenge) with the bound device,
    /// the same way as `authenticateBoundUser`; the answer's `location` is where the browser
    /// would have gone.
    public func authorizeBoundUser(requestURL: URL, timeout: TimeInterval = 10, showLoader: Bool = false) async throws -> AuthorizationCodeResponse {
        // The query is form-encoded (RFC 6749 §3.1: "+" is a space); a repeated parameter is refused.
        guard let query = FormBody(parsing: Data((URLComponents(url: requestURL, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? "").utf8))?.fields else {
            throw CustosError.invalidConfiguration("the authorization request URL repeats a parameter")
        }
        guard let clientID = query["client_id"], let redirectURI = query["redirect_uri"] else {
            throw CustosError.invalidConfiguration("the authorization request URL has no client_id or redirect_uri")
        }
        return try await signInWithBoundDevice(
            DeviceSignInRequest(deviceID: "", clientID: clientID, redirectURI: redirectURI, responseType: query["response_type"] ?? "",
                                scope: query["scope"] ?? "", state: query["state"], nonce: query["nonce"], codeChallenge: query["code_challenge"],
                                codeChallengeMethod: query["code_challenge_method"], prompt: query["prompt"], maxAge: query["max_age"].flatMap { Int($0) },
                                acrValues: query["acr_values"], encrypted: query["encrypted"].map { $0 == "true" },
                                loginHint: query["login_hint"], idTokenHint: query["id_token_hint"], responseMode: query["response_mode"]),
            timeout: timeout, showLoader: showLoader)
    }

    /// The device's part: the challenge, the local authentication, the assertion, the code.
    private func signInWithBoundDevice(_ request: DeviceSignInRequest, timeout: TimeInterval, showLoader: Bool) async throws -> AuthorizationCodeResponse {
        let current = session
        let keyStore = try requireKeyStore()
        let bound: (userID: String, deviceID: String)? = if let userID = current.userID, let deviceID = current.deviceID {
            (userID, deviceID)
        } else {
            try keyStore.binding(for: server).map { ($0.userID, $0.deviceID) }
        }
        guard let (userID, deviceID) = bound, let key = try keyStore.key(for: account(userID)) else { throw CustosError.unknownUser }
        var request = request
        request.deviceID = deviceID
        let challenge: DeviceSignInChallengeResponse
        do {
            challenge = try await transport.call(Endpoints.beginDeviceSignIn, body: request)
        } catch let error as CustosError {
            throw Self.signInError(error)
        }
        if let unlock = configuration.localAuthentication {
            let asked = LocalAuthenticationRequest(notificationUUID: "", action: "sign_in", reason: "Sign in to \(challenge.clientName)",
                                                   showLoader: showLoader)
            switch await Self.answer(within: timeout, { await unlock(asked) }) {
            case nil: throw CustosError.timeout
            case false?: throw CustosError.localAuthenticationCancelled
            case true?: break
            }
        }
        let assertion = try WebAuthnSigning.assertion(challenge: challenge, deviceID: deviceID, key: key,
                                                      userVerified: configuration.localAuthentication != nil)
        let code: AuthorizationCodeResponse
        do {
            code = try await transport.call(Endpoints.completeDeviceSignIn, challenge.authorizationID, body: assertion)
        } catch let error as CustosError {
            throw Self.signInError(error)
        }
        guard code.state == request.state, code.redirectURI == request.redirectURI else {
            throw CustosError.invalidResponse("the authorization response does not belong to this request")
        }
        return code
    }

    /// `authenticateBoundUser` for callers that use completion handlers (the seed's form).
    public func authenticateBoundUser(_ request: BoundUserAuthenticationRequest,
                                      completion: @escaping @Sendable (AuthorizationResponse?, CustosError?) -> Void) {
        Task {
            do { completion(try await authenticateBoundUser(request), nil) } catch { completion(nil, CustosError(error)) }
        }
    }

    /// The server's answers that have a name of their own in bound-device sign-in.
    static func signInError(_ error: CustosError) -> CustosError {
        switch error.code {
        case "unknown_user": .unknownUser
        case "access_denied": .accessDenied
        default: error
        }
    }

    static func randomToken(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<bytes).map { _ in UInt8.random(in: .min ... .max, using: &generator) }).base64URLEncodedString
    }

    /// The answer of `operation`, or nil when it takes longer than `timeout` (the operation is
    /// then left to finish on its own: an app's prompt may not stop when asked).
    static func answer<T: Sendable>(within timeout: TimeInterval, _ operation: @escaping @Sendable () async -> T) async -> T? {
        await withCheckedContinuation { continuation in
            let once = ResumeOnce(continuation)
            Task { once.resume(await operation()) }
            Task {
                try? await Task.sleep(for: .seconds(max(0, timeout)))
                once.resume(nil)
            }
        }
    }
}

/// A continuation resumed by whichever answer comes first.
private final class ResumeOnce<T: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<T?, Never>?>

    init(_ continuation: CheckedContinuation<T?, Never>) {
        self.continuation = Mutex(continuation)
    }

    func resume(_ value: T?) {
        continuation.withLock { $0.take() }?.resume(returning: value)
    }
}
