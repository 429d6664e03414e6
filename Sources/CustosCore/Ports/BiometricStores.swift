import Foundation

/// IDV transactions.
public protocol IDVTransactionStore: Sendable {
    func createTransaction(_ transaction: IDVTransaction) throws
    func transaction(id: String) throws -> IDVTransaction?
    /// The user's transactions still awaiting confirmation or challenged, oldest first.
    func openTransactions(userID: String) throws -> [IDVTransaction]
    /// Up to `limit` transactions of any user still awaiting confirmation or challenged whose
    /// time ran out before `now`.
    func expiredOpenTransactions(now: Date, limit: Int) throws -> [IDVTransaction]
    /// Writes `transaction` only if the stored one is still in `expected` state; false
    /// otherwise (another request moved it on first).
    func updateTransaction(_ transaction: IDVTransaction, expected: IDVTransaction.State) throws -> Bool
}

/// Sealed face templates (one per user) and the registry of template keys.
public protocol TemplateStore: Sendable {
    func template(userID: String) throws -> SealedTemplate?
    /// Creates or replaces the user's template; a replacement keeps the first `createdAt`.
    func saveTemplate(_ template: SealedTemplate) throws
    /// Deletes it; false when there was none.
    @discardableResult
    func deleteTemplate(userID: String) throws -> Bool
    /// Up to `limit` templates sealed under another key than `keyID`.
    func templates(notSealedWith keyID: String, limit: Int) throws -> [SealedTemplate]
    /// Replaces the sealed bytes only if the row is still sealed with `expectedKeyID`.
    func resealTemplate(_ template: SealedTemplate, expectedKeyID: String) throws -> Bool

    /// The key new templates are sealed with; nil before the first.
    func activeTemplateKeyID() throws -> String?
    /// Makes `keyID` the only active key (registering it).
    func activateTemplateKey(_ keyID: String, at now: Date) throws
    /// Forgets inactive keys no template uses; returns how many.
    @discardableResult
    func pruneTemplateKeys() throws -> Int
}

/// One capture's frame fingerprints, sealed like a template, kept for a while so that a
/// replayed take is recognised however it was re-encoded (`SequenceReplay`).
public struct SealedFrameMemory: Sendable, Equatable {
    public var id: String
    public var userID: String
    public var keyID: String
    public var ciphertext: Data
    public var createdAt: Date
    public var expiresAt: Date

    public init(id: String, userID: String, keyID: String, ciphertext: Data, createdAt: Date, expiresAt: Date) {
        self.id = id
        self.userID = userID
        self.keyID = keyID
        self.ciphertext = ciphertext
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// The captures a user submitted, as sealed fingerprints; deleted with the user.
public protocol FrameMemoryStore: Sendable {
    func saveFrameMemory(_ memory: SealedFrameMemory) throws
    /// The user's unexpired memories, newest first, at most `limit`.
    func frameMemories(userID: String, now: Date, limit: Int) throws -> [SealedFrameMemory]
    /// Deletes expired memories; returns how many.
    @discardableResult
    func purgeFrameMemories(now: Date) throws -> Int
}

/// Seals templates: AES-256-GCM under a key derived from the master key for `keyID`, with
/// `associatedData` (the user id) bound in, so a template cannot be moved to another user.
public protocol TemplateCipher: Sendable {
    func seal(_ plaintext: Data, keyID: String, associatedData: Data) throws -> Data
    /// Throws when the data was altered or belongs to another key or user.
    func open(_ sealed: Data, keyID: String, associatedData: Data) throws -> Data
}
