import CustosConfiguration
import CustosCore
import CustosCrypto
import CustosCryptoServices
import CustosStore
import Foundation

/// Finds the master key: given directly, in a file, or — in `--dev` only — generated once
/// and kept in the data directory. Outside `--dev` a missing key is a configuration error. During a
/// master key rotation the previous key comes from `previous_master_key_file`.
public enum MasterKeyLoader {
    /// The master key and, when `previous_master_key_file` is set, the previous one.
    public static func load(_ configuration: ServerConfiguration) throws -> MasterKeys {
        let primary = try loadPrimary(configuration)
        guard let path = configuration.previousMasterKeyFile else { return MasterKeys(primary: primary) }
        let previous = try read(path, origin: "previous master key file")
        guard previous.keyID != primary.keyID else {
            throw RuntimeError(.configuration, "the previous master key file \(path) holds the master key itself (\(primary.keyID))")
        }
        return MasterKeys(primary: primary, previous: previous)
    }

    /// The master key alone.
    public static func loadPrimary(_ configuration: ServerConfiguration) throws -> MasterKey {
        if let text = configuration.masterKey {
            return try parse(text, origin: "CUSTOS_MASTER_KEY")
        }
        if let path = configuration.masterKeyFile {
            return try read(path, origin: "master key file")
        }
        guard configuration.development else {
            throw RuntimeError(.configuration, "a master key is required: set CUSTOS_MASTER_KEY_FILE (or --master-key-file) to a file holding 32 random bytes in base64, or use --dev for development")
        }
        return try developmentKey(at: configuration.developmentKeyPath, directory: configuration.dataDirectory)
    }

    /// The key in the file at `path`; `origin` names the file in messages ("master key file").
    public static func read(_ path: String, origin: String) throws -> MasterKey {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw RuntimeError(.failure, "cannot read the \(origin) \(path)")
        }
        return try parse(String(decoding: data, as: UTF8.self), origin: "\(origin) \(path)")
    }

    /// The store of `configuration`, opened and migrated, once the keys are checked against it.
    public static func openStore(_ configuration: ServerConfiguration, checking keys: MasterKeys) throws -> SQLStore {
        try openStore(configuration, checking: keys.primary, alsoAccepting: keys.previous)
    }

    /// The store of `configuration`, opened and migrated, once `key` is checked against it
    /// (the data may record `other` instead).
    public static func openStore(_ configuration: ServerConfiguration, checking key: MasterKey, alsoAccepting other: MasterKey?) throws -> SQLStore {
        let store = try StoreFactory.open(configuration, migrate: true)
        do {
            try check(key, alsoAccepting: other, against: store, configuration)
        } catch {
            store.close()
            throw error
        }
        return store
    }

    /// Refuses a key the data was not sealed with: the data records the id (a one-way check
    /// value) of the first master key it met, and every later start must bring the same key —
    /// a wrong key file, or `--dev` against production data, stops here with a clear message
    /// instead of failing on the first template it cannot open. During a rotation the data
    /// may record `other` instead (the previous key, before the rotation has finished).
    public static func check(_ key: MasterKey, alsoAccepting other: MasterKey? = nil, against store: any ServerMetadataStore,
                      _ configuration: ServerConfiguration) throws {
        let stored = try store.metadata(MasterKeys.metadataName, storingIfAbsent: key.keyID)
        guard stored == key.keyID || stored == other?.keyID else {
            let given = configuration.masterKey != nil ? "CUSTOS_MASTER_KEY"
                : configuration.masterKeyFile.map { "the master key file \($0)" }
                ?? "the development key in \(configuration.developmentKeyPath) (--dev)"
            throw RuntimeError(.failure, "this data is sealed with master key \(stored), but \(given) is key \(key.keyID): start with the key this data was made with")
        }
    }

    private static func parse(_ text: String, origin: String) throws -> MasterKey {
        do {
            return try MasterKey(base64: text.trimmingCharacters(in: .whitespacesAndNewlines))
        } catch {
            throw RuntimeError(.configuration, "\(origin) is not a valid master key: \(error)")
        }
    }

    private static func developmentKey(at path: String, directory: String) throws -> MasterKey {
        if let data = FileManager.default.contents(atPath: path) {
            return try parse(String(decoding: data, as: UTF8.self), origin: "development key \(path)")
        }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let key = MasterKey.generate()
        guard FileManager.default.createFile(atPath: path, contents: Data((key.exportBase64() + "\n").utf8),
                                             attributes: [.posixPermissions: 0o600]) else {
            throw RuntimeError(.failure, "cannot write the development master key to \(path)")
        }
        return key
    }
}
