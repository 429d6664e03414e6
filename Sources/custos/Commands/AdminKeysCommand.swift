import CustosConfiguration
import CustosCore
import CustosCrypto
import CustosCryptoServices
import CustosRuntime
import Foundation

/// `custos admin keys rotate`: a new template key, every face template re-sealed under it,
/// straight against the database while servers keep running.
enum AdminKeysCommand {
    static let settings: [Setting] = [.dataDir, .databaseURL, .config, .dev, .masterKey, .masterKeyFile, .previousMasterKeyFile]

    static let rotate = Command(spec: CommandSpec(
        path: "admin keys rotate", summary: "Re-encrypt every face template under a new template key (no downtime).",
        options: [ClientOptions.json.spec] + ServeCommand.settingOptions(settings))
    ) { arguments in
        let configuration = try ServeCommand.resolveConfiguration(arguments, settings: settings).configuration
        let masterKeys = try MasterKeyLoader.load(configuration)
        let store = try MasterKeyLoader.openStore(configuration, checking: masterKeys)
        defer { store.close() }
        let vault = TemplateVault(store: store, cipher: MasterKeyTemplateCipher(masterKeys: masterKeys), random: SecureRandom())
        let report = try vault.rotateKeys(audit: ApplicationFactory.auditTrail(store: store, masterKeys: masterKeys), now: Date())
        try ClientOptions.output(arguments, KeyRotationInfo(keyID: report.newKeyID, resealed: report.resealed, prunedKeys: report.prunedKeys)) {
            ["template key \(report.newKeyID) active; \(report.resealed) template(s) re-encrypted, \(report.prunedKeys) old key(s) retired"]
        }
        return .ok
    }

    static let publishFor = Option<Int>.integer("publish-for", "SECONDS", in: Int(KeyPublication.minimum)...86400,
                                                default: Int(KeyPublication.minimum),
                                                help: "publish the new keys this long before they sign: at least every node's reread of the key ring (30 s) plus the JWKS cache time (60 s), with time to spare")
    static let retainFor = Option<Int>.integer("retain-for", "SECONDS", in: 0...(366 * 86400), default: 86400,
                                               help: "keep older keys published this long after")

    static let rotateSigning = Command(spec: CommandSpec(
        path: "admin keys rotate-signing",
        summary: "Add a new signing key: published at once, signing after --publish-for; older keys stay published for --retain-for more.",
        options: [ClientOptions.json.spec, publishFor.spec, retainFor.spec] + ServeCommand.settingOptions(settings),
        example: "custos admin keys rotate-signing --publish-for 300 --master-key-file /etc/custos/master.key")
    ) { arguments in
        let configuration = try ServeCommand.resolveConfiguration(arguments, settings: settings).configuration
        let (publishFor, retainFor) = (arguments[publishFor], arguments[retainFor])
        let masterKeys = try MasterKeyLoader.load(configuration)
        let store = try MasterKeyLoader.openStore(configuration, checking: masterKeys)
        defer { store.close() }
        let now = Date()
        let kid = try SigningKeyRing(store: store, masterKeys: masterKeys).rotate(now: now, publishFor: TimeInterval(publishFor),
                                                                                retainFor: TimeInterval(retainFor))
        try ApplicationFactory.auditTrail(store: store, masterKeys: masterKeys).record(.keyRotation, userID: nil, details: ["signing_key_id": kid])
        let activates = now.addingTimeInterval(TimeInterval(publishFor))
        try ClientOptions.output(arguments, SigningRotationInfo(kid: kid, activatesAt: activates)) {
            ["signing key \(kid) published; it signs from \(iso(activates))"]
        }
        return .ok
    }

    struct SigningRotationInfo: Encodable {
        let kid: String
        let activatesAt: Date
        enum CodingKeys: String, CodingKey {
            case kid
            case activatesAt = "activates_at"
        }
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
