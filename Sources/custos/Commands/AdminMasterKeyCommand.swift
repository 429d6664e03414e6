import CustosConfiguration
import CustosCore
import CustosCrypto
import CustosCryptoServices
import CustosRuntime
import Foundation

/// `custos admin keys rotate-master`: everything sealed under the master key re-sealed under a
/// new one and the audit chain re-keyed, straight against the database while servers keep
/// running with the new key as primary and the current one as previous.
enum AdminMasterKeyCommand {
    /// The current key comes the usual way; `previous_master_key_file` is read only to refuse
    /// it (a node's configuration names the keys the other way round).
    static let settings: [Setting] = AdminKeysCommand.settings

    static let newKeyFile = Option<String?>.text("new-master-key-file", "FILE",
                                                 help: "file holding the new master key (base64 of 32 bytes); give the current one as --master-key-file").required()

    static let rotate = Command(spec: CommandSpec(
        path: "admin keys rotate-master",
        summary: "Re-seal templates, frame memories, document images and signing keys and re-key the audit under a new master key (no downtime).",
        options: [ClientOptions.json.spec, newKeyFile.spec] + ServeCommand.settingOptions(settings),
        example: "custos admin keys rotate-master --master-key-file old.key --new-master-key-file new.key")
    ) { arguments in
        let newKeyPath = try arguments[newKeyFile]
        let configuration = try ServeCommand.resolveConfiguration(arguments, settings: settings).configuration
        guard configuration.previousMasterKeyFile == nil else {
            throw UsageError("give the key this data is sealed with as the master key and the new one as --new-master-key-file, without previous_master_key_file")
        }
        let current = try MasterKeyLoader.loadPrimary(configuration)
        let new = try MasterKeyLoader.read(newKeyPath, origin: "new master key file")
        guard new.keyID != current.keyID else {
            throw UsageError("the new master key file \(newKeyPath) holds the current master key (\(current.keyID)): make a new key")
        }
        // A re-run after the new key was recorded finishes what is left, or changes nothing.
        let store = try MasterKeyLoader.openStore(configuration, checking: current, alsoAccepting: new)
        defer { store.close() }
        let report = try MasterKeyRotation(store: store, from: current, to: new).run()
        for (kind, ids) in report.unopenable.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            Console.error("warning: \(ids.count) \(kind.rawValue) record(s) open under neither key and were left as they are: \(ids.joined(separator: ", "))")
        }
        let info = RotationInfo(current: current, new: new, report: report)
        try ClientOptions.output(arguments, info) {
            guard report.totalResealed + report.auditEventsRekeyed > 0 || report.recordedNewKey else {
                return ["master key \(new.keyID): nothing left to re-seal, the data is sealed under it"]
            }
            let counts = "\(info.resealed.template) template(s), \(info.resealed.frameMemory) frame memory(ies), "
                + "\(info.resealed.document) document image(s), \(info.resealed.signingKey) signing key(s) re-sealed, "
                + "\(report.auditEventsRekeyed) audit event(s) re-keyed"
            return ["master key \(current.keyID) -> \(new.keyID): \(counts)",
                    "the data now records master key \(new.keyID); restart every node with it alone (without the previous key)"]
        }
        return .ok
    }

    /// `--json` output: key ids and counts, never key material.
    struct RotationInfo: Encodable {
        struct Counts: Encodable {
            let template: Int
            let frameMemory: Int
            let document: Int
            let signingKey: Int
            enum CodingKeys: String, CodingKey {
                case template, document
                case frameMemory = "frame_memory"
                case signingKey = "signing_key"
            }
        }

        let oldKeyID: String
        let newKeyID: String
        let resealed: Counts
        let auditEventsRekeyed: Int
        let recordedNewKey: Bool
        let unopenable: [String: [String]]

        init(current: MasterKey, new: MasterKey, report: MasterKeyRotationReport) {
            oldKeyID = current.keyID
            newKeyID = new.keyID
            resealed = Counts(template: report.resealed[.template] ?? 0, frameMemory: report.resealed[.frameMemory] ?? 0,
                              document: report.resealed[.document] ?? 0, signingKey: report.resealed[.signingKey] ?? 0)
            auditEventsRekeyed = report.auditEventsRekeyed
            recordedNewKey = report.recordedNewKey
            unopenable = Dictionary(uniqueKeysWithValues: report.unopenable.map { ($0.key.rawValue, $0.value) })
        }

        enum CodingKeys: String, CodingKey {
            case resealed, unopenable
            case oldKeyID = "old_master_key_id"
            case newKeyID = "new_master_key_id"
            case auditEventsRekeyed = "audit_events_rekeyed"
            case recordedNewKey = "recorded_new_key"
        }
    }
}
