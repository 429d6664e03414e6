import CustosCore
import Foundation

// MARK: - DocumentStore

extension SQLStore: DocumentStore {
    private static let documentColumns = "id, transaction_id, user_id, side, key_id, ciphertext, created_at, expires_at"

    public func saveDocument(_ document: SealedDocument) throws {
        try database.execute(
            "INSERT INTO idv_documents (\(Self.documentColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                .text(document.id), .text(document.transactionID), .text(document.userID), .text(document.side.rawValue),
                .text(document.keyID), .blob(document.ciphertext), .date(document.createdAt), .date(document.expiresAt),
            ]
        )
    }

    public func document(transactionID: String, side: DocumentSide, now: Date) throws -> SealedDocument? {
        let rows = try database.select(
            "SELECT \(Self.documentColumns) FROM idv_documents WHERE transaction_id = ? AND side = ? AND expires_at > ?",
            [.text(transactionID), .text(side.rawValue), .date(now)]
        )
        return try rows.first.map {
            SealedDocument(id: try $0.string(0), transactionID: try $0.string(1), userID: try $0.string(2),
                           side: try $0.enumValue(DocumentSide.self, 3, column: "idv_documents.side"), keyID: try $0.string(4),
                           ciphertext: try $0.data(5), createdAt: try $0.date(6), expiresAt: try $0.date(7))
        }
    }

    public func documentSides(transactionID: String, now: Date) throws -> [DocumentSide] {
        let rows = try database.select("SELECT side FROM idv_documents WHERE transaction_id = ? AND expires_at > ?",
                                       [.text(transactionID), .date(now)])
        let sides = Set(try rows.map { try $0.enumValue(DocumentSide.self, 0, column: "idv_documents.side") })
        return DocumentSide.allCases.filter(sides.contains)
    }

    @discardableResult
    public func purgeDocuments(now: Date) throws -> Int {
        try database.execute("DELETE FROM idv_documents WHERE expires_at <= ?", [.date(now)])
    }
}
