import CustosCrypto
import CustosCryptoServices
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@testable import CustosCore
@testable import CustosStore

/// `custos admin keys rotate-master` on a SQLite data directory holding templates, frame
/// memories, signing keys and audit events, made as the server makes them; nodes meanwhile
/// run with the new key as primary and the old one as previous.
@Suite struct MasterKeyRotationCLITests {
    /// A data directory sealed under `old`, with `new` waiting in its own file.
    struct SealedData {
        let dataDir = CLI.temporaryDirectory()
        let old = MasterKey.generate()
        let new = MasterKey.generate()
        var oldKeyFile: String { dataDir + "/old.key" }
        var newKeyFile: String { dataDir + "/new.key" }
        var databasePath: String { dataDir + "/" + SQLStore.defaultSQLiteFileName }
        let template: BiometricTemplate
        let fingerprints: [FrameFingerprint?] = [FrameFingerprint(values: (0..<FrameFingerprint.length).map { Float($0) / 100 }), nil]
        let document = DocumentImage(side: .front, bytes: Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data("a document".utf8), format: .jpeg)

        /// Alice's and Bob's templates and frame memories, Alice's document scan image, two signing
        /// keys (made by the CLI, as an operator would) and audit events, all under `old`.
        init() throws {
            let descriptor = try FaceDescriptor(Array(repeating: 0.25, count: 128))
            template = BiometricTemplate(descriptors: [descriptor], mean: descriptor, quality: 0.9)
            for (key, file) in [(old, oldKeyFile), (new, newKeyFile)] {
                try Data((key.exportBase64() + "\n").utf8).write(to: URL(fileURLWithPath: file))
            }
            try withStore { store in
                #expect(try store.metadata(MasterKeys.metadataName, storingIfAbsent: old.keyID) == old.keyID)
                for user in ["alice", "bob", "carol"] {
                    try store.createUser(User(id: user, status: .active, createdAt: Date()))
                }
                let vault = vault(store, MasterKeys(primary: old))
                for user in ["alice", "bob"] {
                    try store.saveTemplate(try vault.seal(template, userID: user, workflow: .biometricOptIn, consentVersion: "v1",
                                                          consentAt: Date(), now: Date()))
                    try store.saveFrameMemory(try vault.sealFrames(fingerprints, id: "fm_" + user, userID: user, now: Date(),
                                                                   expiresAt: Date().addingTimeInterval(3600)))
                }
                try store.createTransaction(IDVTransaction(id: "t_alice", userID: "alice", workflow: .additionalDocumentScan, reason: "r",
                                                           state: .completed, consentVersion: nil, createdAt: Date(),
                                                           expiresAt: Date().addingTimeInterval(600)))
                try store.saveDocument(try vault.sealDocument(document, transactionID: "t_alice", userID: "alice", now: Date(),
                                                              expiresAt: Date().addingTimeInterval(3600)))
                try trail(store, MasterKeys(primary: old)).record(.enrollment, userID: "alice", details: ["workflow": "10"])
            }
            for _ in 0..<2 {
                let rotated = try CLI.run(["admin", "keys", "rotate-signing", "--master-key-file", oldKeyFile, "--data-dir", dataDir])
                #expect(rotated.status == 0, "\(rotated.stderr)")
            }
        }

        func withStore<T>(_ body: (SQLStore) throws -> T) throws -> T {
            let store = try SQLStore.openSQLite(path: databasePath)
            defer { store.close() }
            return try body(store)
        }

        func vault(_ store: SQLStore, _ keys: MasterKeys) -> TemplateVault {
            TemplateVault(store: store, cipher: MasterKeyTemplateCipher(masterKeys: keys), random: SecureRandom())
        }

        func trail(_ store: SQLStore, _ keys: MasterKeys) -> AuditTrail {
            AuditTrail(store: store, digester: MasterKeyAuditDigester(masterKey: keys.primary),
                       previousDigester: keys.previous.map(MasterKeyAuditDigester.init(masterKey:)), clock: SystemClock())
        }

        /// Every sealed row, every audit event and the recorded key id, to compare before and after.
        struct Snapshot: Equatable {
            var records: [SealedRecord]
            var events: [AuditEvent]
            var masterKeyID: String
        }

        func snapshot() throws -> Snapshot {
            try withStore { store in
                Snapshot(records: try SealedRecord.Kind.allCases.flatMap { try store.sealedRecords($0, afterID: nil, limit: 1000) },
                         events: try store.auditEvents(afterSequence: 0, limit: 1000, userID: nil, transactionID: nil),
                         masterKeyID: try store.metadata(MasterKeys.metadataName, storingIfAbsent: "none"))
            }
        }

        /// Whether every template, frame memory, document image and signing key there is opens
        /// under `keys`.
        func everythingOpens(under keys: MasterKeys) throws -> Bool {
            try withStore { store in
                let vault = vault(store, keys)
                let templates = try store.sealedRecords(.template, afterID: nil, limit: 1000)
                let memories = try store.sealedRecords(.frameMemory, afterID: nil, limit: 1000)
                guard !templates.isEmpty, !memories.isEmpty else { return false }
                for record in templates {
                    guard let sealed = try store.template(userID: record.id), (try? vault.open(sealed)) == template else { return false }
                }
                for record in memories {
                    let memory = SealedFrameMemory(id: record.id, userID: record.userID ?? "", keyID: record.keyID ?? "",
                                                   ciphertext: record.ciphertext, createdAt: Date(), expiresAt: Date())
                    guard (try? vault.openFrames(memory)) == fingerprints else { return false }
                }
                guard let sealed = try store.document(transactionID: "t_alice", side: .front, now: Date()),
                      (try? vault.openDocument(sealed)) == document else { return false }
                let ring = SigningKeyRing(store: store, masterKeys: keys, refreshInterval: 0)
                return (try? ring.sign(payload: Data("{}".utf8), type: "JWT", now: Date())) != nil
            }
        }

        func rotate(_ extra: [String] = []) throws -> CLI.Result {
            try CLI.run(["admin", "keys", "rotate-master", "--master-key-file", oldKeyFile, "--new-master-key-file", newKeyFile,
                         "--data-dir", dataDir] + extra)
        }

        /// The `--json` answer of a rotation.
        struct Answer: Decodable, Equatable {
            struct Counts: Decodable, Equatable {
                let template: Int
                let frame_memory: Int
                let document: Int
                let signing_key: Int
            }
            let old_master_key_id: String
            let new_master_key_id: String
            let resealed: Counts
            let audit_events_rekeyed: Int
            let recorded_new_key: Bool
        }
    }

    /// The whole runbook: nodes on the new key with the old one as previous, then the rotation,
    /// then the new key alone.
    @Test func rotationResealsEverythingUnderTheNewKey() async throws {
        let data = try SealedData()
        let both = MasterKeys(primary: data.new, previous: data.old)
        // A node already on the new key enrols Carol and audits under the new key meanwhile.
        try data.withStore { store in
            try store.saveTemplate(try data.vault(store, both).seal(data.template, userID: "carol", workflow: .kyc, consentVersion: "v1",
                                                                    consentAt: Date(), now: Date()))
            try data.trail(store, both).record(.enrollment, userID: "carol", details: ["workflow": "6"])
        }
        #expect(try data.everythingOpens(under: both))
        #expect(try !data.everythingOpens(under: MasterKeys(primary: data.new)))
        let window = ["--master-key-file", data.newKeyFile, "--previous-master-key-file", data.oldKeyFile, "--data-dir", data.dataDir]
        let mixed = try CLI.run(["admin", "audit", "verify"] + window)
        #expect(mixed.status == 0 && mixed.stdout.hasPrefix("audit chain intact: 4 events"), "\(mixed.stdout)\(mixed.stderr)")
        try await expectServes(window, signingKeys: 4)

        let rotated = try data.rotate(["--json"])
        #expect(rotated.status == 0, "\(rotated.stderr)")
        let answer = try JSONDecoder().decode(SealedData.Answer.self, from: Data(rotated.stdout.utf8))
        #expect(answer == SealedData.Answer(old_master_key_id: data.old.keyID, new_master_key_id: data.new.keyID,
                                            resealed: .init(template: 2, frame_memory: 2, document: 1, signing_key: 4),
                                            audit_events_rekeyed: 4, recorded_new_key: true))

        // The old key alone is refused; the new key alone opens everything and verifies the audit.
        let refused = try CLI.run(["serve", "--master-key-file", data.oldKeyFile, "--data-dir", data.dataDir, "--port", "0", "--idv=false"])
        #expect(refused.status == 1 && refused.stderr.contains("this data is sealed with master key \(data.new.keyID)"), "\(refused.stderr)")
        #expect(try data.everythingOpens(under: MasterKeys(primary: data.new)))
        #expect(try !data.everythingOpens(under: MasterKeys(primary: data.old)))
        try await expectServes(["--master-key-file", data.newKeyFile, "--data-dir", data.dataDir], signingKeys: 4)
        let verified = try CLI.run(["admin", "audit", "verify", "--master-key-file", data.newKeyFile, "--data-dir", data.dataDir])
        #expect(verified.status == 0 && verified.stdout.hasPrefix("audit chain intact: 5 events"), "\(verified.stdout)\(verified.stderr)")
        let last = try #require(try data.snapshot().events.last)
        #expect(last.auditKind == .masterKeyRotated)
        #expect(last.details == ["old_master_key_id": data.old.keyID, "new_master_key_id": data.new.keyID,
                                 "resealed": "9", "audit_events_rekeyed": "4"])

        // A re-run changes nothing and says so.
        let before = try data.snapshot()
        let again = try data.rotate()
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("nothing left to re-seal"), "\(again.stdout)")
        #expect(try data.snapshot() == before)

        // A node that still sealed under the old key is caught by another run.
        try data.withStore { store in
            try store.saveFrameMemory(try data.vault(store, MasterKeys(primary: data.old))
                .sealFrames(data.fingerprints, id: "fm_late", userID: "carol", now: Date(), expiresAt: Date().addingTimeInterval(60)))
        }
        let late = try data.rotate(["--json"])
        #expect(late.status == 0, "\(late.stderr)")
        let lateAnswer = try JSONDecoder().decode(SealedData.Answer.self, from: Data(late.stdout.utf8))
        #expect(lateAnswer.resealed == .init(template: 0, frame_memory: 1, document: 0, signing_key: 0) && !lateAnswer.recorded_new_key)
        #expect(try CLI.run(["admin", "audit", "verify", "--master-key-file", data.newKeyFile, "--data-dir", data.dataDir]).status == 0)
    }

    @Test func aKeyThatIsNotTheDataKeyIsRefused() throws {
        let data = try SealedData()
        let before = try data.snapshot()
        let otherFile = data.dataDir + "/other.key"
        try Data(MasterKey.generate().exportBase64().utf8).write(to: URL(fileURLWithPath: otherFile))
        let wrong = try CLI.run(["admin", "keys", "rotate-master", "--master-key-file", otherFile, "--new-master-key-file", data.newKeyFile,
                                 "--data-dir", data.dataDir])
        #expect(wrong.status == 1 && wrong.stderr.contains("this data is sealed with master key \(data.old.keyID)"), "\(wrong.stderr)")
        // Nor does a node start with it, whatever previous key it has beside it.
        let serve = try CLI.run(["serve", "--master-key-file", otherFile, "--previous-master-key-file", data.newKeyFile,
                                 "--data-dir", data.dataDir, "--port", "0", "--idv=false"])
        #expect(serve.status == 1 && serve.stderr.contains("this data is sealed with master key \(data.old.keyID)"), "\(serve.stderr)")
        let twice = try CLI.run(["serve", "--master-key-file", data.oldKeyFile, "--previous-master-key-file", data.oldKeyFile,
                                 "--data-dir", data.dataDir, "--port", "0", "--idv=false"])
        #expect(twice.status == 2 && twice.stderr.contains("holds the master key itself"), "\(twice.stderr)")

        let same = try CLI.run(["admin", "keys", "rotate-master", "--master-key-file", data.oldKeyFile, "--new-master-key-file", data.oldKeyFile,
                                "--data-dir", data.dataDir])
        #expect(same.status == 2 && same.stderr.contains("holds the current master key"), "\(same.stderr)")
        try Data("not a key\n".utf8).write(to: URL(fileURLWithPath: otherFile))
        let invalid = try CLI.run(["admin", "keys", "rotate-master", "--master-key-file", data.oldKeyFile, "--new-master-key-file", otherFile,
                                   "--data-dir", data.dataDir])
        #expect(invalid.status == 2 && invalid.stderr.contains("new master key file \(otherFile) is not a valid master key"), "\(invalid.stderr)")
        let missing = try CLI.run(["admin", "keys", "rotate-master", "--master-key-file", data.oldKeyFile, "--data-dir", data.dataDir])
        #expect(missing.status == 2 && missing.stderr.contains("--new-master-key-file FILE is required"), "\(missing.stderr)")
        let previous = try data.rotate(["--previous-master-key-file", data.oldKeyFile])
        #expect(previous.status == 2 && previous.stderr.contains("without previous_master_key_file"), "\(previous.stderr)")
        #expect(try data.snapshot() == before)
    }

    @Test func aTamperedAuditChainRefusesWithoutChangingAnything() throws {
        let data = try SealedData()
        _ = try data.withStore { store in
            try store.database.execute("UPDATE audit_events SET user_id = ? WHERE sequence = ?", [.text("mallory"), .integer(1)])
        }
        let before = try data.snapshot()
        let refused = try data.rotate()
        #expect(refused.status == 1, "\(refused.stdout)")
        #expect(refused.stderr.contains("the audit chain is broken at event 1: hash mismatch"), "\(refused.stderr)")
        #expect(try data.snapshot() == before)
        #expect(before.masterKeyID == data.old.keyID)
        #expect(try data.everythingOpens(under: MasterKeys(primary: data.old)))
    }

    /// `custos serve` with `arguments` starts and opens every signing key (the JWKS lists them).
    private func expectServes(_ arguments: [String], signingKeys: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let serve = try ServeProcess(["--port", "0", "--idv=false"] + arguments)
        let port = try #require(serve.waitForEvent("listening")?["port"] as? Int, "log: \(serve.logLines)", sourceLocation: sourceLocation)
        let (body, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/.well-known/jwks.json")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200, "log: \(serve.logLines)", sourceLocation: sourceLocation)
        let keys = (try JSONSerialization.jsonObject(with: body) as? [String: Any])?["keys"] as? [Any]
        #expect(keys?.count == signingKeys, sourceLocation: sourceLocation)
        #expect(serve.terminate() == 0, sourceLocation: sourceLocation)
    }
}
