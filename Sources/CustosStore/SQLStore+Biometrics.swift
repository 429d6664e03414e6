import CustosCore
import Foundation

// MARK: - IDVTransactionStore

extension SQLStore: IDVTransactionStore {
    private static let transactionColumns = """
        id, user_id, workflow, reason, state, consent_version, created_at, expires_at, challenge, challenge_issued_at, \
        completed_at, result, replaces_template, rp_nonce
        """

    public func createTransaction(_ transaction: IDVTransaction) throws {
        try database.execute(
            "INSERT INTO idv_transactions (\(Self.transactionColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [.text(transaction.id), .text(transaction.userID)] + (try Self.transactionFields(transaction))
        )
    }

    public func transaction(id: String) throws -> IDVTransaction? {
        let rows = try database.select("SELECT \(Self.transactionColumns) FROM idv_transactions WHERE id = ?", [.text(id)])
        return try rows.first.map(Self.transaction(from:))
    }

    public func openTransactions(userID: String) throws -> [IDVTransaction] {
        let rows = try database.select(
            "SELECT \(Self.transactionColumns) FROM idv_transactions WHERE user_id = ? AND state IN (?, ?) ORDER BY created_at",
            [.text(userID), .text(IDVTransaction.State.awaitingConfirmation.rawValue), .text(IDVTransaction.State.challenged.rawValue)])
        return try rows.map(Self.transaction(from:))
    }

    public func expiredOpenTransactions(now: Date, limit: Int) throws -> [IDVTransaction] {
        let rows = try database.select(
            "SELECT \(Self.transactionColumns) FROM idv_transactions WHERE state IN (?, ?) AND expires_at <= ? ORDER BY expires_at LIMIT ?",
            [.text(IDVTransaction.State.awaitingConfirmation.rawValue), .text(IDVTransaction.State.challenged.rawValue), .date(now),
             .integer(Int64(limit))])
        return try rows.map(Self.transaction(from:))
    }

    public func updateTransaction(_ transaction: IDVTransaction, expected: IDVTransaction.State) throws -> Bool {
        let changed = try database.execute(
            """
            UPDATE idv_transactions SET workflow = ?, reason = ?, state = ?, consent_version = ?, created_at = ?, expires_at = ?,
                challenge = ?, challenge_issued_at = ?, completed_at = ?, result = ?, replaces_template = ?, rp_nonce = ?
            WHERE id = ? AND state = ?
            """,
            (try Self.transactionFields(transaction)) + [.text(transaction.id), .text(expected.rawValue)]
        )
        return changed > 0
    }

    private static func transactionFields(_ t: IDVTransaction) throws -> [SQLValue] {
        [
            .integer(Int64(t.workflow.rawValue)), .text(t.reason), .text(t.state.rawValue), .optionalText(t.consentVersion),
            .date(t.createdAt), .date(t.expiresAt), try t.challenge.map(SQLValue.json) ?? .null, .optionalDate(t.challengeIssuedAt),
            .optionalDate(t.completedAt), try t.result.map(SQLValue.json) ?? .null, .integer(t.replacesTemplate ? 1 : 0),
            .optionalText(t.relyingPartyNonce),
        ]
    }

    private static func transaction(from row: SQLRow) throws -> IDVTransaction {
        let workflow = try row.enumValue(IDVWorkflow.self, 2, column: "idv_transactions.workflow")
        return IDVTransaction(
            id: try row.string(0), userID: try row.string(1), workflow: workflow, reason: try row.string(3),
            state: try row.enumValue(IDVTransaction.State.self, 4, column: "idv_transactions.state"),
            consentVersion: try row.optionalString(5), createdAt: try row.date(6), expiresAt: try row.date(7),
            challenge: try row.optionalString(8).map { try decode(LivenessChallenge.self, $0, column: "challenge") },
            challengeIssuedAt: try row.optionalDate(9), completedAt: try row.optionalDate(10),
            result: try row.optionalString(11).map { try decode(IDVResult.self, $0, column: "result") },
            replacesTemplate: try row.bool(12), relyingPartyNonce: try row.optionalString(13))
    }

    private static func decode<T: Decodable>(_ type: T.Type, _ text: String, column: String) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(text.utf8))
        } catch {
            throw StoreError.failure("idv_transactions.\(column): unreadable JSON")
        }
    }
}

// MARK: - TemplateStore

extension SQLStore: TemplateStore {
    private static let templateColumns = """
        user_id, key_id, ciphertext, model_id, quality, workflow, consent_version, consent_at, created_at, updated_at
        """

    public func template(userID: String) throws -> SealedTemplate? {
        let rows = try database.select("SELECT \(Self.templateColumns) FROM biometric_templates WHERE user_id = ?", [.text(userID)])
        return try rows.first.map(Self.template(from:))
    }

    public func saveTemplate(_ template: SealedTemplate) throws {
        try database.execute(
            """
            INSERT INTO biometric_templates (\(Self.templateColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (user_id) DO UPDATE SET key_id = excluded.key_id, ciphertext = excluded.ciphertext,
                model_id = excluded.model_id, quality = excluded.quality, workflow = excluded.workflow,
                consent_version = excluded.consent_version, consent_at = excluded.consent_at, updated_at = excluded.updated_at
            """,
            [
                .text(template.userID), .text(template.keyID), .blob(template.ciphertext), .text(template.modelID),
                .real(template.quality), .integer(Int64(template.workflow.rawValue)), .text(template.consentVersion),
                .date(template.consentAt), .date(template.createdAt), .date(template.updatedAt),
            ]
        )
    }

    @discardableResult
    public func deleteTemplate(userID: String) throws -> Bool {
        try database.execute("DELETE FROM biometric_templates WHERE user_id = ?", [.text(userID)]) > 0
    }

    public func templates(notSealedWith keyID: String, limit: Int) throws -> [SealedTemplate] {
        let rows = try database.select(
            "SELECT \(Self.templateColumns) FROM biometric_templates WHERE key_id <> ? ORDER BY user_id LIMIT ?",
            [.text(keyID), .integer(Int64(limit))]
        )
        return try rows.map(Self.template(from:))
    }

    public func resealTemplate(_ template: SealedTemplate, expectedKeyID: String) throws -> Bool {
        try database.execute(
            "UPDATE biometric_templates SET key_id = ?, ciphertext = ? WHERE user_id = ? AND key_id = ?",
            [.text(template.keyID), .blob(template.ciphertext), .text(template.userID), .text(expectedKeyID)]
        ) > 0
    }

    public func activeTemplateKeyID() throws -> String? {
        try database.select("SELECT id FROM template_keys WHERE active = 1 ORDER BY created_at DESC, id LIMIT 1").first?.string(0)
    }

    /// Serialised like audit appends (PostgreSQL table lock, SQLite single writer), so two nodes
    /// activating at once leave one key active, not both.
    public func activateTemplateKey(_ keyID: String, at now: Date) throws {
        try database.transaction { connection in
            if database.dialect == .postgresql {
                try connection.execute("LOCK TABLE template_keys IN EXCLUSIVE MODE")
            }
            _ = try connection.execute("UPDATE template_keys SET active = 0 WHERE active = 1", [])
            _ = try connection.execute("INSERT INTO template_keys (id, created_at, active) VALUES (?, ?, 1)", [.text(keyID), .date(now)])
        }
    }

    @discardableResult
    public func pruneTemplateKeys() throws -> Int {
        try database.execute(
            "DELETE FROM template_keys WHERE active = 0 AND id NOT IN (SELECT DISTINCT key_id FROM biometric_templates)"
        )
    }

    private static func template(from row: SQLRow) throws -> SealedTemplate {
        let workflow = try row.enumValue(IDVWorkflow.self, 5, column: "biometric_templates.workflow")
        return SealedTemplate(
            userID: try row.string(0), keyID: try row.string(1), ciphertext: try row.data(2), modelID: try row.string(3),
            quality: try row.double(4), workflow: workflow, consentVersion: try row.string(6), consentAt: try row.date(7),
            createdAt: try row.date(8), updatedAt: try row.date(9))
    }
}

// MARK: - FrameMemoryStore

extension SQLStore: FrameMemoryStore {
    public func saveFrameMemory(_ memory: SealedFrameMemory) throws {
        try database.execute(
            "INSERT INTO frame_memories (id, user_id, key_id, ciphertext, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)",
            [.text(memory.id), .text(memory.userID), .text(memory.keyID), .blob(memory.ciphertext), .date(memory.createdAt),
             .date(memory.expiresAt)]
        )
    }

    public func frameMemories(userID: String, now: Date, limit: Int) throws -> [SealedFrameMemory] {
        let rows = try database.select(
            """
            SELECT id, user_id, key_id, ciphertext, created_at, expires_at FROM frame_memories
            WHERE user_id = ? AND expires_at > ? ORDER BY created_at DESC, id LIMIT ?
            """,
            [.text(userID), .date(now), .integer(Int64(limit))]
        )
        return try rows.map {
            SealedFrameMemory(id: try $0.string(0), userID: try $0.string(1), keyID: try $0.string(2), ciphertext: try $0.data(3),
                              createdAt: try $0.date(4), expiresAt: try $0.date(5))
        }
    }

    @discardableResult
    public func purgeFrameMemories(now: Date) throws -> Int {
        try database.execute("DELETE FROM frame_memories WHERE expires_at <= ?", [.date(now)])
    }
}
