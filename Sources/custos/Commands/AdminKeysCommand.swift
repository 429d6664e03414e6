import CustosCore
import CustosCrypto
import CustosServer
import Foundation

/// `custos admin keys rotate`: a new template key, every face template re-sealed under it,
/// straight against the database while servers keep running.
enum AdminKeysCommand {
    static let settings: [Setting] = [.dataDir, .databaseURL, .config, .dev, .masterKey, .masterKeyFile]

    static let rotate = Command(spec: CommandSpec(
        path: "admin keys rotate", summary: "Re-encrypt every face template under a new template key (no downtime).",
        options: [ClientOptions.json] + ServeCommand.settingOptions(settings))
    ) { arguments in
        let configuration = try ServeCommand.resolveConfiguration(arguments, settings: settings).configuration
        let masterKey = try MasterKeyLoader.load(configuration)
        let store = try StoreFactory.open(configuration, migrate: true)
        defer { store.close() }
        let vault = TemplateVault(store: store, cipher: MasterKeyTemplateCipher(masterKey: masterKey), random: SecureRandom())
        let report = try vault.rotateKeys(audit: ApplicationFactory.auditTrail(store: store), now: Date())
        try ClientOptions.output(arguments, KeyRotationInfo(keyID: report.newKeyID, resealed: report.resealed, prunedKeys: report.prunedKeys)) {
            ["template key \(report.newKeyID) active; \(report.resealed) template(s) re-encrypted, \(report.prunedKeys) old key(s) retired"]
        }
        return .ok
    }

    /// `--json` output.
    struct KeyRotationInfo: Encodable {
        let keyID: String
        let resealed: Int
        let prunedKeys: Int
        enum CodingKeys: String, CodingKey {
            case resealed
            case keyID = "key_id"
            case prunedKeys = "pruned_keys"
        }
    }
}
