import CustosCore
import Foundation

// MARK: - ServerMetadataStore

extension SQLStore: ServerMetadataStore {
    public func metadata(_ name: String, storingIfAbsent value: String) throws -> String {
        _ = try database.execute("INSERT INTO server_metadata (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
                                 [.text(name), .text(value)])
        guard let stored = try database.select("SELECT value FROM server_metadata WHERE name = ?", [.text(name)]).first else {
            throw StoreError.failure("server_metadata.\(name) vanished")
        }
        return try stored.string(0)
    }

    public func replaceMetadata(_ name: String, expected: String, with value: String) throws -> Bool {
        try database.execute("UPDATE server_metadata SET value = ? WHERE name = ? AND value = ?",
                             [.text(value), .text(name), .text(expected)]) > 0
    }
}
