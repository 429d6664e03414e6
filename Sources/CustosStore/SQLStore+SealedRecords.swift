import CustosCore
import Foundation

// MARK: - SealedRecordStore

extension SQLStore: SealedRecordStore {
    /// Where each kind of sealed value is kept: its table, key column and sealed bytes, and
    /// whether its rows name a user and a template key (`user_id`, `key_id`).
    private struct SealedTable {
        let name: String
        let id: String
        let ciphertext: String
        let owned: Bool

        static func of(_ kind: SealedRecord.Kind) -> SealedTable {
            switch kind {
            case .template: SealedTable(name: "biometric_templates", id: "user_id", ciphertext: "ciphertext", owned: true)
            case .frameMemory: SealedTable(name: "frame_memories", id: "id", ciphertext: "ciphertext", owned: true)
            case .signingKey: SealedTable(name: "signing_keys", id: "kid", ciphertext: "sealed_key", owned: false)
            case .document: SealedTable(name: "idv_documents", id: "id", ciphertext: "ciphertext", owned: true)
            }
        }
    }

    /// Keyset paging on the table's key.
    public func sealedRecords(_ kind: SealedRecord.Kind, afterID: String?, limit: Int) throws -> [SealedRecord] {
        let table = SealedTable.of(kind)
        let columns = [table.id, table.ciphertext] + (table.owned ? ["user_id", "key_id"] : [])
        let rows = try database.select(
            "SELECT \(columns.joined(separator: ", ")) FROM \(table.name)"
                + (afterID == nil ? "" : " WHERE \(table.id) > ?") + " ORDER BY \(table.id) LIMIT ?",
            (afterID.map { [SQLValue.text($0)] } ?? []) + [.integer(Int64(max(1, limit)))]
        )
        return try rows.map { row in
            SealedRecord(kind: kind, id: try row.string(0), userID: table.owned ? try row.string(2) : nil,
                         keyID: table.owned ? try row.string(3) : nil, ciphertext: try row.data(1))
        }
    }

    /// A compare-and-set on the sealed bytes themselves.
    public func replaceSealedRecord(_ kind: SealedRecord.Kind, id: String, expected: Data, with ciphertext: Data) throws -> Bool {
        let table = SealedTable.of(kind)
        return try database.execute(
            "UPDATE \(table.name) SET \(table.ciphertext) = ? WHERE \(table.id) = ? AND \(table.ciphertext) = ?",
            [.blob(ciphertext), .text(id), .blob(expected)]
        ) > 0
    }
}
