import CustosAPI
import CustosSDK
import Foundation

/// `custos admin client create|list|show|delete`: OpenID Connect clients, over the admin API.
enum OIDCClientCommands {
    static let all: [Command] = [create, list, show, delete]

    static let remote: [OptionSpec] = [ClientOptions.server.spec, ClientOptions.apiKey.spec, ClientOptions.json.spec]
    static let name = Option<String?>.text("name", "NAME", help: "the client's name, shown to users").required()
    static let type = Option<String>.text("type", "TYPE", default: "public", help: "public (an app: PKCE, no secret) or confidential (a server)")
    static let redirectURI = Option<String?>.text("redirect-uri", "URI", help: "a redirect URI, compared exactly (repeat for several)").required()
    static let scope = Option<String?>.text("scope", "SCOPE", help: "a scope the client may ask for (repeat; default all: openid offline_access profile email phone address)")
    static let encryptionJWK = Option<String?>.text("encryption-jwk", "JWK", help: "public EC P-256 JWK (JSON, or @FILE) to encrypt ID tokens to")
    static let assertionJWK = Option<String?>.text("assertion-jwk", "JWK", help: "public EC P-256 JWK (JSON, or @FILE) for private_key_jwt")
    static let postLogoutRedirectURI = Option<String?>.text("post-logout-redirect-uri", "URI",
                                                            help: "where RP-initiated logout may send the browser afterwards (repeat for several)")
    static let idTokenAlg = Option<String?>.text("id-token-alg", "ALG", help: "how its ID tokens are signed: ES256 (default) or RS256")
    static let clientID = Argument("client", help: "the client id (oc_…)")

    static let create = Command(spec: CommandSpec(
        path: "admin client create", summary: "Register an OpenID Connect client (a confidential client's secret is shown once).",
        options: remote + [name.spec, type.spec, redirectURI.spec, scope.spec, encryptionJWK.spec, assertionJWK.spec, idTokenAlg.spec,
                           postLogoutRedirectURI.spec],
        example: "custos admin client create --name 'Example app' --redirect-uri com.example.app:/callback")
    ) { arguments in
        let client = try ClientOptions.adminClient(arguments)
        let given = arguments.every(scope.spec)
        let scopes = given.isEmpty ? nil : given   // none given: the server's default
        let request = CreateOIDCClientRequest(
            name: try arguments[name], clientType: arguments[type], redirectURIs: arguments.every(redirectURI.spec),
            scopes: scopes, encryptionJWK: try arguments[encryptionJWK].map { try jwk($0, option: "encryption-jwk") },
            assertionJWK: try arguments[assertionJWK].map { try jwk($0, option: "assertion-jwk") },
            idTokenSignedResponseAlg: arguments[idTokenAlg], postLogoutRedirectURIs: arguments.every(postLogoutRedirectURI.spec))
        let created = try await client.createOIDCClient(request)
        try ClientOptions.output(arguments, created) {
            describe(created) + (created.clientSecret.map { ["client secret (shown once, keep it secret): \($0)"] } ?? [])
        }
        return .ok
    }

    static let list = Command(spec: CommandSpec(path: "admin client list", summary: "List OpenID Connect clients.", options: remote)) { arguments in
        let list = try await ClientOptions.adminClient(arguments).oidcClients()
        try ClientOptions.output(arguments, list) {
            list.clients.isEmpty ? ["no clients"] : list.clients.map { "\($0.clientID)  \($0.clientType)  \($0.name)" }
        }
        return .ok
    }

    static let show = Command(spec: CommandSpec(path: "admin client show", summary: "Show an OpenID Connect client.", options: remote,
                                                arguments: [clientID])) { arguments in
        let info = try await ClientOptions.adminClient(arguments).oidcClient(arguments[clientID])
        try ClientOptions.output(arguments, info) { describe(info) }
        return .ok
    }

    static let delete = Command(spec: CommandSpec(
        path: "admin client delete", summary: "Delete a client and every grant and token it holds.",
        options: [ClientOptions.server.spec, ClientOptions.apiKey.spec], arguments: [clientID])
    ) { arguments in
        let id = arguments[clientID]
        try await ClientOptions.adminClient(arguments).deleteOIDCClient(id)
        Console.out("deleted \(id)")
        return .ok
    }

    static func describe(_ info: OIDCClientInfo) -> [String] {
        ["client \(info.clientID) (\(info.clientType), \(info.tokenEndpointAuthMethod)): \(info.name)",
         "redirect URIs: \(info.redirectURIs.joined(separator: " "))",
         "scopes: \(info.scopes.joined(separator: " "))", "ID tokens signed \(info.idTokenSignedResponseAlg ?? "ES256")"]
            + (info.encryptionJWK == nil ? [] : ["ID tokens may be encrypted to its key"])
            + ((info.postLogoutRedirectURIs ?? []).isEmpty ? [] : ["after logout: \((info.postLogoutRedirectURIs ?? []).joined(separator: " "))"])
    }

    /// A JWK given inline or as `@FILE`.
    static func jwk(_ text: String, option: String) throws -> ClientJWK {
        var json = text
        if text.hasPrefix("@") {
            guard let data = FileManager.default.contents(atPath: String(text.dropFirst())) else {
                throw UsageError("--\(option): cannot read \(text.dropFirst())")
            }
            json = String(decoding: data, as: UTF8.self)
        }
        guard let jwk = try? JSONDecoder().decode(ClientJWK.self, from: Data(json.utf8)) else {
            throw UsageError("--\(option) must be a JSON Web Key (kty, crv, x, y)")
        }
        return jwk
    }
}
