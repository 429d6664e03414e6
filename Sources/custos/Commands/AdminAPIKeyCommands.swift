import CustosAPI
import CustosCore
import CustosRuntime
import CustosStore
import Foundation

/// `custos admin apikey create|list|revoke`: straight against the database, so the first
/// admin key needs no running server and no key.
enum AdminAPIKeyCommands {
    static let all: [Command] = [create, list, revoke]

    static let scope = Option<APIKey.Scope>("scope", "SCOPE", default: .rp, shownDefault: "rp", help: "admin or rp",
                                            expected: "admin or rp") { APIKey.Scope(rawValue: $0) }
    static let label = Option<String?>.text("label", "TEXT", help: "what the key is for (default: the scope)")

    static let create = Command(spec: CommandSpec(
        path: "admin apikey create", summary: "Create an API key (shown once) directly in the database.",
        options: [scope.spec, label.spec, ClientOptions.json.spec] + DatabaseOptions.options,
        example: "custos admin apikey create --scope admin --label ops")
    ) { arguments in
        let scope = arguments[scope]
        let (key, secret) = try withService(arguments) { try $0.create(scope: scope, label: arguments[label] ?? scope.rawValue, actor: AuditActor.local) }
        let info = APIKeyInfo(id: key.id, scope: key.scope.rawValue, label: key.label, createdAt: key.createdAt, key: secret)
        try ClientOptions.output(arguments, info) {
            ["API key \(key.id) (\(key.scope.rawValue), \(key.label)) — shown once, keep it secret:", secret]
        }
        return .ok
    }

    static let list = Command(spec: CommandSpec(
        path: "admin apikey list", summary: "List API keys (never their secrets).", options: [ClientOptions.json.spec] + DatabaseOptions.options)
    ) { arguments in
        let keys = try withService(arguments) { try $0.list() }
        let infos = keys.map { APIKeyInfo(id: $0.id, scope: $0.scope.rawValue, label: $0.label, createdAt: $0.createdAt, revokedAt: $0.revokedAt) }
        try ClientOptions.output(arguments, APIKeyList(apiKeys: infos)) {
            infos.isEmpty ? ["no API keys"] : infos.map { "\($0.id)  \($0.scope)  \($0.label)\($0.revokedAt == nil ? "" : "  (revoked)")" }
        }
        return .ok
    }

    static let keyID = Argument("id", help: "the key's id, as admin apikey list prints it")

    static let revoke = Command(spec: CommandSpec(
        path: "admin apikey revoke", summary: "Revoke an API key at once.", options: DatabaseOptions.options, arguments: [keyID])
    ) { arguments in
        let id = arguments[keyID]
        do {
            try withService(arguments) { try $0.revoke(id: id, actor: AuditActor.local) }
        } catch IdentityError.apiKeyNotFound {
            Console.error("custos admin apikey revoke: no active API key \(id)")
            return .failure
        }
        Console.out("revoked \(id)")
        return .ok
    }

    private static func withService<T>(_ arguments: ParsedArguments, _ body: (APIKeyService) throws -> T) throws -> T {
        try DatabaseOptions.withStore(arguments) { try body(ApplicationFactory.apiKeyService(store: $0)) }
    }
}
