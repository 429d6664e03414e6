import CustosCore
import CustosCrypto
import Foundation

/// What a master-key rotation did.
public struct MasterKeyRotationReport: Sendable, Equatable {
    /// Records re-sealed under the new key, by kind; those already under it are not counted.
    public var resealed: [SealedRecord.Kind: Int] = [:]
    /// The ids of records that open under neither key, by kind, left as they are (they did not
    /// open before the rotation either).
    public var unopenable: [SealedRecord.Kind: [String]] = [:]
    /// Audit events whose link and hash were recomputed.
    public var auditEventsRekeyed = 0
    /// Whether this run recorded the new key as the data's (false on a re-run).
    public var recordedNewKey = false

    public var totalResealed: Int { resealed.values.reduce(0, +) }
}

/// Why a master-key rotation refused to run or stopped.
public enum MasterKeyRotationError: Error, Equatable, CustomStringConvertible {
    /// The new key is the current one.
    case sameKey(String)
    /// The data records a key that is neither the current nor the new one.
    case notTheDataKey(recorded: String, current: String)
    /// The audit chain does not verify under either key; the chain and the data's key id were
    /// left as they are.
    case brokenAuditChain(AuditChainBreak)
    /// Rows of this kind were still being rewritten after every pass (by a node still sealing
    /// under the current key?); the data's key id was left as it is.
    case keepsChanging(SealedRecord.Kind)

    public var description: String {
        switch self {
        case .sameKey(let id): "the new master key is the current one (\(id))"
        case .notTheDataKey(let recorded, let current):
            "this data is sealed with master key \(recorded), not with the current key \(current)"
        case .brokenAuditChain(let broken):
            "refusing to rotate: the audit chain is broken at event \(broken.sequence): \(broken.reason); "
                + "the chain and the data's master key are unchanged (custos admin audit verify shows the break)"
        case .keepsChanging(let kind):
            "\(kind.rawValue) rows kept changing during \(MasterKeyRotation.maximumPasses) passes; run the rotation again "
                + "once every node runs with the new key as primary"
        }
    }
}

/// Moves everything sealed under the master key to a new one while servers keep running
/// (`custos admin keys rotate-master`). Servers run meanwhile with the new key as primary and
/// the current one as previous (`MasterKeys`), so they open both and seal under the new one.
///
/// In order: the audit chain is verified (a broken chain refuses, nothing changed); every
/// template, frame memory, document image and signing key is re-sealed, in batches, each row replaced only
/// while it still holds what was read (a row a server rewrote meanwhile is read again on the
/// next pass); the audit chain is re-keyed in one locked transaction (`AuditTrail.rekey()`);
/// a `keys.master_key_rotated` event is appended and the new key id recorded as the data's.
/// Rows already under the new key are skipped, so a run interrupted at any point is finished
/// by running it again, and a run after a finished one changes nothing.
public struct MasterKeyRotation: Sendable {
    public typealias Storage = SealedRecordStore & AuditStore & ServerMetadataStore

    let store: any Storage
    let current: MasterKey
    let new: MasterKey
    let clock: any Clock
    let batchSize: Int
    /// Passes over the sealed rows at most, while rows keep changing under the rotation.
    static let maximumPasses = 10

    public init(store: any Storage, from current: MasterKey, to new: MasterKey, clock: any Clock = SystemClock(), batchSize: Int = 100) {
        self.store = store
        self.current = current
        self.new = new
        self.clock = clock
        self.batchSize = max(1, batchSize)
    }

    /// Runs the rotation; see the type. Throws `MasterKeyRotationError`, `AuditError` for an
    /// unreadable event, `StoreError` when the database fails.
    public func run() throws -> MasterKeyRotationReport {
        guard current.keyID != new.keyID else { throw MasterKeyRotationError.sameKey(new.keyID) }
        let recorded = try store.metadata(MasterKeys.metadataName, storingIfAbsent: current.keyID)
        guard recorded == current.keyID || recorded == new.keyID else {
            throw MasterKeyRotationError.notTheDataKey(recorded: recorded, current: current.keyID)
        }
        let trail = AuditTrail(store: store, digester: MasterKeyAuditDigester(masterKey: new),
                               previousDigester: MasterKeyAuditDigester(masterKey: current), clock: clock)
        if let broken = try trail.verify().firstBreak { throw MasterKeyRotationError.brokenAuditChain(broken) }

        var report = MasterKeyRotationReport()
        for kind in SealedRecord.Kind.allCases {
            try reseal(kind, into: &report)
        }
        do {
            report.auditEventsRekeyed = try trail.rekey()
        } catch AuditError.brokenChain(let broken) {
            throw MasterKeyRotationError.brokenAuditChain(broken)
        }
        let changed = report.totalResealed + report.auditEventsRekeyed > 0
        if recorded == current.keyID || changed {
            try trail.record(.masterKeyRotated, userID: nil, details: [
                "old_master_key_id": current.keyID, "new_master_key_id": new.keyID,
                "resealed": String(report.totalResealed), "audit_events_rekeyed": String(report.auditEventsRekeyed),
            ])
        }
        if recorded == current.keyID {
            report.recordedNewKey = try store.replaceMetadata(MasterKeys.metadataName, expected: current.keyID, with: new.keyID)
            // Lost only to another run of the same rotation.
            let now = try store.metadata(MasterKeys.metadataName, storingIfAbsent: new.keyID)
            guard now == new.keyID else { throw MasterKeyRotationError.notTheDataKey(recorded: now, current: current.keyID) }
        }
        return report
    }

    /// Walks every record of `kind` in batches; passes repeat while rows changed under it.
    private func reseal(_ kind: SealedRecord.Kind, into report: inout MasterKeyRotationReport) throws {
        for _ in 0..<Self.maximumPasses {
            var conflicts = 0
            var unopenable: [String] = []
            var after: String?
            while true {
                let page = try store.sealedRecords(kind, afterID: after, limit: batchSize)
                guard let last = page.last else { break }
                for record in page {
                    let sealed: Data?
                    do {
                        sealed = try resealed(record)
                    } catch is CryptoError {
                        unopenable.append(record.id)
                        continue
                    }
                    guard let sealed else { continue }
                    if try store.replaceSealedRecord(kind, id: record.id, expected: record.ciphertext, with: sealed) {
                        report.resealed[kind, default: 0] += 1
                    } else {
                        conflicts += 1
                    }
                }
                after = last.id
            }
            report.unopenable[kind] = unopenable.isEmpty ? nil : unopenable
            if conflicts == 0 { return }
        }
        throw MasterKeyRotationError.keepsChanging(kind)
    }

    /// `record` sealed under the new key; nil when it already is. Throws `CryptoError` when it
    /// opens under neither key.
    private func resealed(_ record: SealedRecord) throws -> Data? {
        let (purpose, owner) = Self.sealing(of: record)
        if (try? new.open(record.ciphertext, purpose: purpose, associatedData: owner)) != nil { return nil }
        let plaintext = try current.open(record.ciphertext, purpose: purpose, associatedData: owner)
        return try new.seal(plaintext, purpose: purpose, associatedData: owner)
    }

    /// The HKDF purpose and associated data `record` is sealed with (see `MasterKeyTemplateCipher`,
    /// `TemplateVault.frameMemoryOwner`, `TemplateVault.documentOwner`, `SigningKeyRing`).
    static func sealing(of record: SealedRecord) -> (purpose: String, associatedData: Data) {
        let keyID = record.keyID ?? ""
        let userID = record.userID ?? ""
        return switch record.kind {
        case .template: (MasterKeyTemplateCipher.purpose(keyID: keyID), Data(userID.utf8))
        case .frameMemory: (MasterKeyTemplateCipher.purpose(keyID: keyID), TemplateVault.frameMemoryOwner(userID))
        case .signingKey: (SigningKeyRing.sealingPurpose, Data(record.id.utf8))
        case .document: (MasterKeyTemplateCipher.purpose(keyID: keyID), TemplateVault.documentOwner(userID: userID, documentID: record.id))
        }
    }
}
