import CustosAPI
import CustosCrypto
import CustosSDK
import Foundation

/// `custos signin` (this device as the bound device of OpenID Connect sign-in), `custos token
/// exchange` (the app's code exchange) and `custos token verify` (what the app's server does
/// with the ID token it is sent).
enum SignInCommands {
    static let all: [Command] = [signIn, exchange, verify]

    static let bound = Flag("bound", help: "sign in with the bound device only: an unbound device fails (exit 9), nothing else is tried")
    static let user = Option<String?>.text("user", "USER", help: "without --bound, on an unbound device: the user to register this device for")
    static let name = Option<String?>.text("name", "NAME", help: "the device's name when it is registered (default: this host's name)")
    static let clientID = Option<String?>.text("client-id", "CLIENT", help: "the OpenID client (oc_…)")
    static let redirectURI = Option<String?>.text("redirect-uri", "URI", help: "the client's registered redirect URI")
    static let encrypted = Flag("encrypted", help: "encrypt the ID token to the client's registered key")
    static let scope = Option<String>.text("scope", "SCOPES", default: "openid offline_access",
                                           help: "the scopes asked for, space-separated (profile, email, phone, address release the user's claims)")
    static let authorizationURL = Option<String?>.text("authorization-url", "URL",
                                                       help: "approve this authorization request (the relying party's /oauth2/authorize URL) instead")
    static let yes = Flag("yes", help: "approve without asking (this terminal is the device's local authentication)")
    static let timeout = Option<Int>.integer("timeout", "SECONDS", in: 1...600, default: 10, help: "seconds to answer the approval")

    static let signIn = Command(spec: CommandSpec(
        path: "signin", summary: "Sign in to an OpenID client with this device's key (without --bound: registering it first if need be).",
        options: [bound.spec, clientID.spec, redirectURI.spec, scope.spec, encrypted.spec, authorizationURL.spec, yes.spec, timeout.spec, user.spec,
                  name.spec, ClientOptions.passwordStdin.spec, ClientOptions.profile.spec, ClientOptions.profileServer.spec, ClientOptions.json.spec],
        example: "custos signin --bound --client-id oc_… --redirect-uri com.example.app:/callback"),
        validate: { arguments in
            if arguments[bound], arguments[user] != nil { throw UsageError("--user is for the fallback: give it without --bound") }
            if !arguments[bound], arguments[authorizationURL] != nil { throw UsageError("--authorization-url needs --bound") }
            if arguments[authorizationURL] == nil {
                guard arguments[clientID] != nil, arguments[redirectURI] != nil else {
                    throw UsageError("--client-id and --redirect-uri are required (or --authorization-url)")
                }
            } else if arguments[clientID] != nil || arguments[redirectURI] != nil || arguments[encrypted] || arguments.value(scope.spec.name) != nil {
                throw UsageError("--authorization-url carries the request: give no --client-id, --redirect-uri, --scope or --encrypted")
            }
        }
    ) { arguments in
        let client = try boundClient(arguments)
        do {
            if let url = arguments[authorizationURL] {
                guard let requestURL = URL(string: url) else { throw UsageError("--authorization-url is not a URL") }
                let response = try await client.authorizeBoundUser(requestURL: requestURL, timeout: TimeInterval(arguments[timeout]))
                try ClientOptions.output(arguments, response) {
                    response.responseMode == "form_post"
                        ? ["code: \(response.code)", "post code, state and iss as a form to \(response.redirectURI) (response_mode=form_post)"]
                        : ["code: \(response.code)", "location: \(response.location)"]
                }
            } else {
                guard let redirect = arguments[redirectURI] else { throw UsageError("--redirect-uri is required (or --authorization-url)") }
                let request = BoundUserAuthenticationRequest(redirectURI: redirect, encrypted: arguments[encrypted],
                                                             timeout: TimeInterval(arguments[timeout]), scope: arguments[scope],
                                                             clientID: arguments[clientID])
                let response: AuthorizationResponse
                if arguments[bound] {
                    response = try await client.authenticateBoundUser(request)
                } else {
                    // The fallback: the password registers this device, whose profile is then kept.
                    let given = try fallbackCredentials(arguments)
                    response = try await client.authenticate(request) { given }
                    try saveProfile(client, arguments)
                }
                let printed = SignInOutput(code: response.code, state: response.state, redirectURI: response.redirectURI, iss: response.issuer,
                                           location: response.location, clientID: response.clientID, codeVerifier: response.codeVerifier,
                                           nonce: response.nonce, encrypted: response.encrypted)
                try ClientOptions.output(arguments, printed) {
                    ["code: \(printed.code)", "code verifier: \(printed.codeVerifier ?? "(none)")", "nonce: \(printed.nonce)",
                     "location: \(printed.location)"]
                }
            }
        } catch let error as CustosError {
            return failure(error, command: "signin")
        }
        return .ok
    }

    static let code = Option<String?>.text("code", "CODE", help: "the authorization code")
    static let verifier = Option<String?>.text("verifier", "VERIFIER", help: "the PKCE code verifier")
    static let nonce = Option<String?>.text("nonce", "NONCE", help: "the request's nonce, checked in the ID token")
    static let issuer = Option<String?>.text("issuer", "URL", help: "the expected iss (default: the server URL)")
    /// What an exchange cannot do without (`signin` takes the client and redirect URI as optional).
    static let requiredCode = code.required()
    static let requiredClientID = clientID.required()
    static let requiredRedirectURI = redirectURI.required()

    static let exchange = Command(spec: CommandSpec(
        path: "token exchange", summary: "Exchange an authorization code and its PKCE verifier for tokens (as a public client).",
        options: [requiredCode.spec, verifier.spec, requiredClientID.spec, requiredRedirectURI.spec, nonce.spec, encrypted.spec, issuer.spec,
                  ClientOptions.server.spec, ClientOptions.json.spec],
        example: "custos token exchange --code ac_… --verifier … --client-id oc_… --redirect-uri com.example.app:/callback"),
    ) { arguments in
        let server = try ClientOptions.serverURL(arguments)
        let client = try CustosClient(configuration: .init(serverURL: server))
        let response = AuthorizationResponse(code: try arguments[requiredCode], state: "", redirectURI: try arguments[requiredRedirectURI],
                                             issuer: arguments[issuer] ?? issuerOf(server), location: "", clientID: try arguments[requiredClientID],
                                             codeVerifier: arguments[verifier], nonce: arguments[nonce] ?? "", encrypted: arguments[encrypted])
        let tokens: OIDCTokens
        do {
            tokens = try await client.exchangeToken(response)
        } catch let error as CustosError {
            return failure(error, command: "token exchange")
        }
        try ClientOptions.output(arguments, tokens) {
            ["token type: \(tokens.tokenType), expires in \(tokens.expiresIn) s", "id token: \(tokens.idToken)",
             "access token: \(tokens.accessToken)"] + (tokens.refreshToken.map { ["refresh token: \($0)"] } ?? [])
        }
        return .ok
    }

    static let token = Argument("id-token", help: "the ID token (a JWS, or a JWE with --decryption-key)")
    static let decryptionKey = Option<String?>.text("decryption-key", "PEM", help: "the client's private key (PEM file) for an encrypted ID token")

    static let verify = Command(spec: CommandSpec(
        path: "token verify", summary: "Verify an ID token as a relying party's server does: JWKS signature, iss, aud, exp, nonce.",
        options: [requiredClientID.spec, nonce.spec, issuer.spec, decryptionKey.spec, ClientOptions.server.spec, ClientOptions.json.spec],
        arguments: [token], example: "custos token verify eyJ… --client-id oc_…")
    ) { arguments in
        let server = try ClientOptions.serverURL(arguments)
        var idToken = arguments[token]
        if let path = arguments[decryptionKey] {
            guard let pem = try? String(contentsOfFile: path, encoding: .utf8) else { throw UsageError("--decryption-key: cannot read \(path)") }
            do {
                let key = try P256.PrivateKey(pemRepresentation: pem)
                idToken = String(decoding: try JWE.decrypt(idToken, with: key).plaintext, as: UTF8.self)
            } catch {
                Console.error("custos token verify: refused: the token does not decrypt under this key (\(error))")
                return .refused
            }
        }
        let client = try CustosClient(configuration: .init(serverURL: server))
        let claims: [String: Any]
        do {
            let keys = try await client.publicKeySet()
            claims = try IDTokenValidator(issuer: arguments[issuer] ?? issuerOf(server), clientID: try arguments[requiredClientID], nonce: arguments[nonce],
                                          keySet: keys).validate(idToken, now: Date())
        } catch let error as CustosError where error.code == "invalid_response" {
            Console.error("custos token verify: refused: \(error.message)")
            return .refused
        }
        let json = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys, .withoutEscapingSlashes])
        if arguments[ClientOptions.json] {
            Console.out(String(decoding: json, as: UTF8.self))
        } else {
            Console.out("valid: sub \(claims["sub"] as? String ?? "?"), acr \(claims["acr"] as? String ?? "?"), expires \(claims["exp"] ?? "?")")
        }
        return .ok
    }

    /// A client for this device's profile that asks the terminal before the key signs; without
    /// a profile the device is unbound (and says so as `unknownUser`).
    static func boundClient(_ arguments: ParsedArguments) throws -> CustosClient {
        let directory = Profile.directory(arguments)
        let profile = try? Profile.load(directory)
        guard let server = try profile.flatMap({ URL(string: $0.server) }) ?? ClientOptions.givenServer(arguments) ?? URL(string: ClientOptions.defaultServer) else {
            throw UsageError("no server: give --server")
        }
        let approveAll = arguments[yes]
        var configuration = CustosClient.Configuration(serverURL: server, keyStore: FileDeviceKeyStore(directory: directory.appendingPathComponent("keys")))
        configuration.localAuthentication = { request in
            if approveAll { return true }
            FileHandle.standardError.write(Data("\(request.reason)? Approve with this device [y/N]: ".utf8))
            return (readLine() ?? "").lowercased().hasPrefix("y")
        }
        let client = try CustosClient(configuration: configuration)
        if let profile { client.restore(SessionState(userID: profile.userID, deviceID: profile.deviceID, sessionToken: profile.sessionToken)) }
        return client
    }

    /// Who to register the device for, asked only when the fallback runs.
    static func fallbackCredentials(_ arguments: ParsedArguments) throws -> SignInCredentials? {
        let directory = Profile.directory(arguments)
        guard (try? Profile.load(directory)) == nil else { return nil }
        guard let userID = arguments[user] else {
            throw UsageError("this device is not bound: give --user (and the password) to register it, or --bound to fail instead")
        }
        let password = try PasswordInput.read(arguments, prompt: "Password for \(userID): ")
        return SignInCredentials(userID: userID, password: password, deviceName: arguments[name] ?? ProcessInfo.processInfo.hostName)
    }

    static func saveProfile(_ client: CustosClient, _ arguments: ParsedArguments) throws {
        let session = client.session
        guard let userID = session.userID, let deviceID = session.deviceID else { return }
        try Profile(server: client.configuration.serverURL.absoluteString, userID: userID, deviceID: deviceID,
                    sessionToken: session.sessionToken).save(Profile.directory(arguments))
    }

    static func issuerOf(_ server: URL) -> String {
        let text = server.absoluteString
        return text.hasSuffix("/") ? String(text.dropLast()) : text
    }

    static func failure(_ error: CustosError, command: String) -> ExitCode {
        Console.error("custos \(command): \(error.message) (\(error.code))")
        switch error {
        case .unknownUser: return .unknownUser
        case .localAuthenticationCancelled, .passwordPromptDismissed: return .cancelled
        case .timeout: return .timedOut
        case .accessDenied: return .refused
        default: return error.httpStatus.map { (400..<500).contains($0) } == true ? .refused : .failure
        }
    }
}

/// What `custos signin --bound` prints with `--json`.
struct SignInOutput: Encodable {
    var code: String
    var state: String
    var redirectURI: String
    var iss: String
    var location: String
    var clientID: String
    var codeVerifier: String?
    var nonce: String
    var encrypted: Bool

    enum CodingKeys: String, CodingKey {
        case code, state, iss, location, nonce, encrypted
        case redirectURI = "redirect_uri"
        case clientID = "client_id"
        case codeVerifier = "code_verifier"
    }
}
