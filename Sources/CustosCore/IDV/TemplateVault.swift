import Foundation

/// What a template key rotation did.
public struct KeyRotationReport: Sendable, Equatable {
    public var newKeyID: String
    public var resealed: Int
    public var prunedKeys: Int
}

/// Templates at rest: sealed under the active template key, opened with the key their row
/// names, re-sealed when the key rotates.
public struct TemplateVault: Sendable {
    let store: any TemplateStore
    let cipher: any TemplateCipher
    let random: any RandomSource

    public init(store: any TemplateStore, cipher: any TemplateCipher, random: any RandomSource) {
        self.store = store
        self.cipher = cipher
        self.random = random
    }

    func seal(_ template: BiometricTemplate, userID: String, workflow: IDVWorkflow, consentVersion: String, consentAt: Date,
              now: Date) throws -> SealedTemplate {
        let keyID = try activeKeyID(now: now)
        let sealed = try cipher.seal(try JSONEncoder().encode(template), keyID: keyID, associatedData: Data(userID.utf8))
        // Replacing a template keeps its stored `created_at` (see `TemplateStore.saveTemplate`).
        return SealedTemplate(userID: userID, keyID: keyID, ciphertext: sealed, modelID: template.modelID, quality: template.quality,
                              workflow: workflow, consentVersion: consentVersion, consentAt: consentAt, createdAt: now, updatedAt: now)
    }

    /// Throws when the ciphertext was altered or moved to another user.
    public func open(_ sealed: SealedTemplate) throws -> BiometricTemplate {
        let plaintext = try cipher.open(sealed.ciphertext, keyID: sealed.keyID, associatedData: Data(sealed.userID.utf8))
        return try JSONDecoder().decode(BiometricTemplate.self, from: plaintext)
    }

    func activeKeyID(now: Date) throws -> String {
        if let keyID = try store.activeTemplateKeyID() { return keyID }
        let keyID = newKeyID()
        try store.activateTemplateKey(keyID, at: now)
        return keyID
    }

    private func newKeyID() -> String { "tk_" + random.hexID(bytes: 8) }

    /// Makes a new template key active, then re-seals every template under it in batches while
    /// servers keep running: a row is replaced only if it is still sealed with the key it was
    /// read with, and passes repeat until none is left under an older key (templates enrolled
    /// meanwhile by servers that read the previous key are caught by the next pass). Records
    /// the rotation in the audit trail.
    public func rotateKeys(audit: AuditTrail, now: Date, batchSize: Int = 100) throws -> KeyRotationReport {
        let keyID = newKeyID()
        try store.activateTemplateKey(keyID, at: now)
        var resealed = 0
        for _ in 0..<100_000 {
            let batch = try store.templates(notSealedWith: keyID, limit: max(1, batchSize))
            if batch.isEmpty { break }
            for sealed in batch {
                let owner = Data(sealed.userID.utf8)
                var updated = sealed
                updated.keyID = keyID
                updated.ciphertext = try cipher.seal(try cipher.open(sealed.ciphertext, keyID: sealed.keyID, associatedData: owner),
                                                     keyID: keyID, associatedData: owner)
                if try store.resealTemplate(updated, expectedKeyID: sealed.keyID) { resealed += 1 }
            }
        }
        let pruned = try store.pruneTemplateKeys()
        try audit.record(.keyRotation, userID: nil, details: ["key_id": keyID, "resealed": String(resealed)])
        return KeyRotationReport(newKeyID: keyID, resealed: resealed, prunedKeys: pruned)
    }
}
