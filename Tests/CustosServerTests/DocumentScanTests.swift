import CustosAPI
import CustosCore
import CustosCrypto
import CustosCryptoServices
import CustosFace
import CustosHTTP
import CustosRuntime
import CustosSDK
import CustosServer
@testable import CustosStore
import CustosTestSupport
import Foundation
import Testing

/// The additional document scan (workflow 7, challenge mode 10) end to end: a real server on
/// a loopback port over SQLite and PostgreSQL, the SDK, real photos from ../shared/data.
@Suite(needsFaces) struct DocumentScanTests {
    /// The enrolled person's portrait: a frame of the sequence the template was made from,
    /// away from the frames it was made of.
    static func ownPortrait() throws -> Data { try FaceFixture.frames("blink_selfie", 120...120)[0] }
    /// Another person.
    static func someoneElse() throws -> Data { try FaceFixture.frames("talking_obama", 1...1)[0] }
    /// A document back: a PNG.
    static func back() throws -> Data { try SharedData.data("faces/profile/hopper_45.png") }

    @Test(arguments: StoreKind.available)
    func aMatchedDocumentIsSignedSealedAndReadByTheRelyingPartyOnly(kind: StoreKind) async throws {
        let live = try LiveServer(store: LiveServer.store(kind), idv: IDVPolicies.only(.blink), resultDetail: false)
        defer { live.stop() }
        let (client, userID) = try await live.enrolledUser()
        let (front, back) = (try Self.ownPortrait(), try Self.back())
        let asked = Counter()
        let token = client.events.on(.onGetIDVDocumentScanProcessStartConfirmation) { request in
            if request.workflow == 7 { asked.increment() }
            client.setIDVDocumentScanProcessStartConfirmation(true, workflow: request.workflow)
        }
        defer { token.remove() }

        let matched = try await client.initiateIDVAdditionalDocumentScan(reason: "Second document", front: front, back: back)
        #expect(asked.value == 1)
        #expect(matched.statusCode == 100 && matched.biometricResult == BiometricResultInfo(displayText: "MATCHED"))
        #expect(matched.workflow == 7 && matched.challengeMode == 10 && matched.purpose == "Second document")
        #expect(matched.idvAuditInfo.status == "SUCCESS" && matched.idvAuditInfo.reason == "Second document")
        #expect(matched.idvAuditInfo.orchestrationUseCase == "RDNA_IDV_POSTLOGIN_ADDITIONAL_DOCUMENT_SCAN")
        #expect(matched.attempts == 1 && matched.attemptsLeft == 5 && !matched.templateCreated && matched.userID == userID)
        let transactionID = matched.idvAuditInfo.idvAuditTransactionID

        // Signed like every verdict; no liveness claim, for none was judged.
        let api = RawAPI(base: live.baseURL)
        let signed = try #require(matched.signedResult)
        let jwks = try JSONDecoder().decode(JWKSet.self, from: try await api.getData("/.well-known/jwks.json"))
        let kid = try #require(try JWS.unverifiedHeader(signed).kid)
        let key = try #require(jwks.key(withID: kid)).p256PublicKey()
        let claims = try #require(try JSONSerialization.jsonObject(with: try JWS.verify(signed, key: key).payload) as? [String: Any])
        #expect(claims["workflow"] as? Int == 7 && claims["decision"] as? String == "MATCHED" && claims["sub"] as? String == userID)
        #expect(claims["idv_audit_transaction_id"] as? String == transactionID && claims["liveness_passed"] == nil)

        // The relying party's view: the evidence and the sides it can read.
        // (The relying party that created the user: another key reads nothing of it.)
        let (rpKey, rpSecret) = (live.relyingPartyKey, live.relyingPartySecret)
        let view: IDVVerdictResponse = try await api.get("/v1/idv/transactions/\(transactionID)/verdict", bearer: rpSecret)
        #expect(view.decision == "MATCHED" && view.workflow == 7 && view.livenessPassed == nil && view.signedResult == signed)
        #expect(view.documents == ["front", "back"] && (view.distance ?? 1) <= (view.threshold ?? 0))

        // It reads back exactly what was uploaded, with its type, by API key (an admin key has every scope).
        let admin = try live.admin()
        let readFront = try await admin.idvDocument(transactionID, side: "front")
        #expect(readFront.data == front && readFront.contentType == "image/jpeg")
        let readBack = try await admin.idvDocument(transactionID, side: "back")
        #expect(readBack.data == back && readBack.contentType == "image/png")
        let (_, adminSecret) = try live.apiKeys.create(scope: .admin, label: "root", actor: "test")
        let (adminStatus, adminBytes) = try await api.getStatus("/v1/idv/transactions/\(transactionID)/documents/front", bearer: adminSecret)
        #expect(adminStatus == 200 && adminBytes == front)
        _ = try await api.getStatus("/v1/idv/transactions/\(transactionID)/documents/back", bearer: rpSecret)

        // Every read is audited with the side and the key that read it.
        let reads = try LiveServer.audit(live.store).list(userID: userID, transactionID: transactionID)
            .filter { $0.kind == AuditKind.idvDocumentViewed.rawValue }
        #expect(reads.map { $0.details["side"] } == ["front", "back", "front", "back"])
        #expect(reads.last?.details["api_key_id"] == rpKey.id)

        // The app's session, no key, a wrong side, an unknown transaction, a workflow without documents: JSON errors.
        let documentPath = "/v1/idv/transactions/\(transactionID)/documents/front"
        let refusals: [(String?, Int, String)] = [(client.session.sessionToken, 401, "invalid_api_key"), (nil, 401, "invalid_api_key")]
        for (bearer, status, code) in refusals {
            let (got, body) = try await api.getStatus(documentPath, bearer: bearer)
            #expect(got == status && (try? JSONDecoder().decode(ErrorEnvelope.self, from: body))?.error.code == code, "\(got)")
        }
        let selfie = try await client.initiateIDVServerBiometricAuthentication(
            reason: "Payment", frameSource: RecordedFrames(frames: try FaceFixture.frames("blink_selfie", 38...50), framesPerSecond: 12,
                                                           clock: live.clock))
        for (path, code) in [("/v1/idv/transactions/\(transactionID)/documents/middle", "idv_document_not_found"),
                             ("/v1/idv/transactions/0123abcd/documents/front", "idv_transaction_not_found"),
                             ("/v1/idv/transactions/\(selfie.idvAuditInfo.idvAuditTransactionID)/documents/front", "idv_document_not_found")] {
            let (got, body) = try await api.getStatus(path, bearer: rpSecret)
            #expect(got == 404 && (try? JSONDecoder().decode(ErrorEnvelope.self, from: body))?.error.code == code, "\(path) \(got)")
        }

        // At rest: ciphertext bound to its user, transaction and side.
        let sealed = try #require(try live.store.document(transactionID: transactionID, side: .front, now: live.clock.now()))
        #expect(sealed.ciphertext.range(of: front.prefix(64)) == nil && sealed.userID == userID)
        let vault = TemplateVault(store: live.store, cipher: MasterKeyTemplateCipher(masterKey: LiveServer.masterKey), random: SecureRandom())
        #expect(try vault.openDocument(sealed).bytes == front)
        for moved in [SealedDocument(id: sealed.id, transactionID: sealed.transactionID, userID: sealed.userID, side: .back,
                                     keyID: sealed.keyID, ciphertext: sealed.ciphertext, createdAt: sealed.createdAt, expiresAt: sealed.expiresAt),
                      SealedDocument(id: sealed.id, transactionID: selfie.idvAuditInfo.idvAuditTransactionID, userID: sealed.userID,
                                     side: .front, keyID: sealed.keyID, ciphertext: sealed.ciphertext, createdAt: sealed.createdAt,
                                     expiresAt: sealed.expiresAt)] {
            #expect(throws: StoreError.failure("document \(sealed.id) was moved to another transaction or side")) {
                _ = try vault.openDocument(moved)
            }
        }
        // Nothing of the images reached the log.
        #expect(!live.log.lines.contains { $0.contains(front.prefix(16).base64EncodedString()) })
    }

    /// Another person's document: NOT_MATCHED, and an attempt used (no free oracle); the
    /// relying party can still review it.
    @Test(arguments: StoreKind.available)
    func anotherPersonsDocumentIsNotMatchedAndUsesAnAttempt(kind: StoreKind) async throws {
        let live = try LiveServer(store: LiveServer.store(kind), idv: IDVPolicies.only(.blink))
        defer { live.stop() }
        let (client, userID) = try await live.enrolledUser()
        let results = EventLog()
        let token = client.events.on(.onIDVAdditionalDocumentScanResult) { event in
            results.append(event.error?.longErrorCode ?? event.response?.statusCode.rawValue ?? -1)
        }
        defer { token.remove() }
        let refused = try await client.initiateIDVAdditionalDocumentScan(reason: "Someone else's passport", front: try Self.someoneElse())
        #expect(refused.statusCode == 100 && refused.biometricResult?.displayText == "NOT_MATCHED")
        #expect(refused.idvAuditInfo.status == "FAILURE" && refused.attempts == 1 && refused.attemptsLeft == 4)
        #expect((refused.biometricResult?.distance ?? 0) > (refused.biometricResult?.threshold ?? 1))
        #expect(try live.identity.attemptsLeft(userID: userID, factor: .biometric) == 4)
        let view = try await live.admin().idvVerdict(refused.idvAuditInfo.idvAuditTransactionID)
        #expect(view.decision == "NOT_MATCHED" && view.documents == ["front"] && view.attemptsLeft == 4)
        let verdict = try #require(try LiveServer.audit(live.store).list(userID: userID, transactionID: refused.idvAuditInfo.idvAuditTransactionID)
            .first { $0.kind == AuditKind.idvVerdict.rawValue })
        #expect(verdict.details["decision"] == "NOT_MATCHED" && verdict.details["workflow"] == "7" && verdict.details["liveness"] == nil)
        await EventLog.settled(client)
        #expect(results.values == [100])
    }

    /// A document match is a photograph's: it gives back only its own attempt, restarts no
    /// count (a photo of the user buys no selfie attempts) and proves nothing for replacing
    /// the template.
    @Test(arguments: StoreKind.available)
    func aDocumentMatchRestoresNoAttemptsAndOpensNoReenrolment(kind: StoreKind) async throws {
        let live = try LiveServer(store: LiveServer.store(kind), idv: IDVPolicies.only(.blink))
        defer { live.stop() }
        let (client, userID) = try await live.enrolledUser()
        let still = RecordedFrames(frames: try PresentationAttacks.reencodedFrames(try Self.ownPortrait(), count: 10), framesPerSecond: 12,
                                   clock: live.clock)
        let spoof = try await client.initiateIDVServerBiometricAuthentication(reason: "A photo", frameSource: still)
        #expect(spoof.biometricResult?.displayText == "LIVENESS_FAILED" && spoof.attemptsLeft == 4)
        let matched = try await client.initiateIDVAdditionalDocumentScan(reason: "The same photo", front: try Self.ownPortrait())
        #expect(matched.biometricResult?.displayText == "MATCHED" && matched.attemptsLeft == 4)
        #expect(try live.identity.attemptsLeft(userID: userID, factor: .biometric) == 4)
        let replacement = RecordedFrames(frames: try FaceFixture.frames("blink_selfie", 55...70), framesPerSecond: 12, clock: live.clock)
        await expectError("template_change_needs_proof") {
            try await client.initiateIDVBiometricOptIn(consentVersion: "v2", frameSource: replacement)
        }
    }

    /// No template: 600 at once (no attempt); a template deleted after the start: 600 at the
    /// upload, no attempt used, nothing kept. Cancelling a document scan is free.
    @Test(arguments: StoreKind.available)
    func withoutATemplate600AndCancelsAreFree(kind: StoreKind) async throws {
        let live = try LiveServer(store: LiveServer.store(kind), idv: IDVPolicies.only(.blink))
        defer { live.stop() }
        let (fresh, freshID, _) = try await IdentityFlowTests.activatedUser(live)
        let none = try await fresh.initiateIDVAdditionalDocumentScan(reason: "No template", front: try Self.ownPortrait())
        #expect(none.statusCode == 600 && none.attemptsLeft == 5 && none.attempts == 0 && none.biometricResult == nil)
        #expect(try live.identity.attemptsLeft(userID: freshID, factor: .biometric) == 5)

        let (client, userID) = try await live.enrolledUser()
        let bearer = try #require(client.session.sessionToken)
        let api = RawAPI(base: live.baseURL)
        let declined = try await api.documentScan(bearer: bearer)
        let cancelled: IDVResultResponse = try await api.post("/v1/idv/transactions/\(declined.idvAuditTransactionID)/cancel",
                                                              RawAPI.Empty(), bearer: bearer)
        #expect(cancelled.statusCode == 240 && cancelled.attempts == 0 && cancelled.attemptsLeft == 5)
        // Superseded by a new start: free as well.
        _ = try await api.documentScan(bearer: bearer)
        let open = try await api.documentScan(bearer: bearer)
        #expect(try live.identity.attemptsLeft(userID: userID, factor: .biometric) == 5)

        _ = try await live.admin().grantEnrollment(userID)
        #expect(try await client.optOutIDVBiometric().result)
        let gone: IDVResultResponse = try await api.post("/v1/idv/transactions/\(open.idvAuditTransactionID)/document",
                                                         IDVDocumentRequest(frontImage: try Self.ownPortrait()), bearer: bearer)
        #expect(gone.statusCode == 600 && gone.attempts == 0 && gone.attemptsLeft == 5 && gone.challengeMode == 10)
        #expect(try live.store.documentSides(transactionID: open.idvAuditTransactionID, now: live.clock.now()).isEmpty)
    }

    /// Bad uploads get clear JSON errors before anything is judged: no attempt used, and the
    /// transaction stays open, so a good document still goes through.
    @Test(arguments: StoreKind.available)
    func hostileDocumentsGetClearErrorsAndUseNoAttempt(kind: StoreKind) async throws {
        let live = try LiveServer(store: LiveServer.store(kind), idv: IDVPolicies.only(.blink))
        defer { live.stop() }
        let (client, userID) = try await live.enrolledUser()
        let bearer = try #require(client.session.sessionToken)
        let api = RawAPI(base: live.baseURL)
        let capture = try await api.documentScan(bearer: bearer)
        #expect(capture.workflow == 7 && capture.challengeMode == 10 && capture.sides == ["front", "back"])
        #expect(capture.imageTypes == ["image/jpeg", "image/png"] && capture.maxImageBytes == 2 * 1024 * 1024 && capture.maxImagePixels == 2_000_000)
        let path = "/v1/idv/transactions/\(capture.idvAuditTransactionID)/document"
        let good = try Self.ownPortrait()
        let truncated = Data([0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 0x41, count: 200))
        // Small in bytes, large in pixels: refused from its header, before decoding.
        let large = try DecodedImage(rgb: [UInt8](repeating: 128, count: 2000 * 1100 * 3), width: 2000, height: 1100).jpegData(quality: 50)
        let heavy = Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data(count: 2 * 1024 * 1024)
        let noFace = try SharedData.data("faces/noface/eagle.jpg")
        func body(_ front: Data, _ back: Data? = nil) throws -> Data {
            try WireJSON.encoder().encode(IDVDocumentRequest(frontImage: front, backImage: back))
        }
        let cases: [(String, Data, Int, String)] = [
            ("not an image", try body(Data("%PDF-1.7 not a picture".utf8)), 415, "document_not_image"),
            ("back not an image", try body(good, Data("GIF89a".utf8)), 415, "document_not_image"),
            ("empty front", try body(Data()), 422, "document_missing"),
            ("empty back", try body(good, Data()), 422, "invalid_field"),
            ("no front", Data(#"{"back_image":"AAAA"}"#.utf8), 422, "missing_field"),
            ("not base64", Data(#"{"front_image":"%%%"}"#.utf8), 422, "invalid_field"),
            ("wrong types", Data(#"{"front_image":5}"#.utf8), 422, "wrong_type"),
            ("malformed JSON", Data(#"{"front_image":"#.utf8), 400, "malformed_json"),
            ("2.2 megapixels", try body(large), 413, "document_dimensions_too_large"),
            ("back of 2.2 megapixels", try body(good, large), 413, "document_dimensions_too_large"),
            ("over 2 MiB", try body(heavy), 413, "document_too_large"),
            ("truncated front", try body(truncated), 422, "image_unreadable"),
            ("truncated back", try body(good, truncated), 422, "image_unreadable"),
            ("no face", try body(noFace), 422, "document_no_face"),
        ]
        for (name, data, status, code) in cases {
            let (got, envelope) = try await api.postRaw(path, raw: data, bearer: bearer)
            #expect(got == status, "\(name): \(got) \(envelope.error.code)")
            #expect(envelope.error.code == code, "\(name): \(envelope.error.code)")
        }
        #expect(try live.identity.attemptsLeft(userID: userID, factor: .biometric) == 5)
        #expect(try live.store.transaction(id: capture.idvAuditTransactionID)?.state == .challenged)

        // Frames to a document scan, a document to a selfie workflow, a document before the start is confirmed.
        let (framesStatus, framesError) = try await api.postRaw("/v1/idv/transactions/\(capture.idvAuditTransactionID)/frames",
                                                                IDVFramesRequest(nonce: "n", frames: uploads(try FaceFixture.frames("blink_selfie", 1...3))),
                                                                bearer: bearer)
        #expect(framesStatus == 409 && framesError.error.code == "idv_wrong_step")
        let anonymous = try await api.postRaw(path, IDVDocumentRequest(frontImage: good))
        #expect(anonymous.0 == 401)

        // The transaction is still open: a good document is judged.
        let answered: IDVResultResponse = try await api.post(path, IDVDocumentRequest(frontImage: good), bearer: bearer)
        #expect(answered.biometricResult?.displayText == "MATCHED" && answered.attemptsLeft == 5)
        let (again, againError) = try await api.postRaw(path, IDVDocumentRequest(frontImage: good), bearer: bearer)
        #expect(again == 409 && againError.error.code == "idv_transaction_state")

        let selfie = try await api.challenge(bearer: bearer)
        let (wrongStep, wrongStepError) = try await api.postRaw("/v1/idv/transactions/\(selfie.idvAuditTransactionID)/document",
                                                                IDVDocumentRequest(frontImage: good), bearer: bearer)
        #expect(wrongStep == 409 && wrongStepError.error.code == "idv_wrong_step")
        let unconfirmed: IDVTransactionInfo = try await api.post("/v1/idv/transactions", IDVInitiateRequest(workflow: 7), bearer: bearer)
        let (early, earlyError) = try await api.postRaw("/v1/idv/transactions/\(unconfirmed.idvAuditTransactionID)/document",
                                                        IDVDocumentRequest(frontImage: good), bearer: bearer)
        #expect(early == 409 && earlyError.error.code == "idv_transaction_state")
    }

    /// Kept until the retention period ends (housekeeping purges them) or the user is deleted;
    /// an opt-out leaves them.
    @Test(arguments: StoreKind.available)
    func documentsGoWithTheUserAndAfterTheRetentionPeriod(kind: StoreKind) async throws {
        var policy = IDVPolicies.only(.blink)
        policy.documentRetention = 3600
        let live = try LiveServer(store: LiveServer.store(kind), idv: policy)
        defer { live.stop() }
        let admin = try live.admin()
        let (client, userID) = try await live.enrolledUser()
        let kept = try await client.initiateIDVAdditionalDocumentScan(reason: "Kept", front: try Self.ownPortrait(), back: try Self.back())
        let keptID = kept.idvAuditInfo.idvAuditTransactionID
        _ = try await admin.grantEnrollment(userID)
        #expect(try await client.optOutIDVBiometric().result)
        #expect(try await admin.idvDocument(keptID, side: "back").data == (try Self.back()))

        // Past the retention period: unreadable at once, then purged by housekeeping.
        live.clock.advance(by: 3601)
        await expectError("idv_document_not_found") { try await admin.idvDocument(keptID, side: "front") }
        #expect(try await admin.idvVerdict(keptID).documents == nil)
        let housekeeping = Housekeeping(sweeps: [.documents(live.store)], clock: live.clock, logger: Logger(sink: MemoryLogSink()),
                                        interval: 3600)
        defer { housekeeping.stop() }
        #expect(housekeeping.sweep() == 2)
        #expect(try live.idv?.purgeExpiredDocuments() == 0)

        // Deleting the user deletes the images of its scans at once.
        let (other, otherID) = try await live.enrolledUser()
        let scanned = try await other.initiateIDVAdditionalDocumentScan(reason: "Deleted", front: try Self.ownPortrait())
        let scannedID = scanned.idvAuditInfo.idvAuditTransactionID
        #expect(try live.store.documentSides(transactionID: scannedID, now: live.clock.now()) == [.front])
        try await admin.deleteUser(otherID)
        #expect(try live.store.document(transactionID: scannedID, side: .front, now: live.clock.now()) == nil)
        let rows = try live.store.database.select("SELECT count(*) FROM idv_documents WHERE user_id = ? OR user_id = ?",
                                                  [.text(otherID), .text(userID)])
        #expect(try rows.first?.int(0) == 0)
        await expectError("idv_transaction_not_found") { try await admin.idvDocument(scannedID, side: "front") }
    }

    /// The result event fires once on every outcome: a decline (240, no attempt), and a server
    /// error (its HTTP status as the long error code, also thrown).
    @Test(arguments: StoreKind.available)
    func theResultEventFiresOnFailureToo(kind: StoreKind) async throws {
        let live = try LiveServer(store: LiveServer.store(kind), idv: IDVPolicies.only(.blink))
        defer { live.stop() }
        let (client, userID) = try await live.enrolledUser()
        let results = EventLog()
        let declining = LockedFlag()
        let tokens = [
            client.events.on(.onGetIDVDocumentScanProcessStartConfirmation) { request in
                client.setIDVDocumentScanProcessStartConfirmation(!declining.value, workflow: request.workflow)
            },
            client.events.on(.onIDVAdditionalDocumentScanResult) { event in
                results.append(event.error?.longErrorCode ?? 0)
                if event.error != nil, event.response == nil { results.append(-1) }
            },
        ]
        defer { tokens.forEach { $0.remove() } }

        declining.value = true
        let declined = try await client.initiateIDVAdditionalDocumentScan(reason: "Declined", front: try Self.ownPortrait())
        #expect(declined.statusCode == 240 && declined.attempts == 0 && declined.attemptsLeft == 5)
        declining.value = false
        do {
            _ = try await client.initiateIDVAdditionalDocumentScan(reason: "Not a picture", front: Data("hello".utf8))
            Issue.record("a text file was accepted as a document")
        } catch let error as CustosError {
            #expect(error.longErrorCode == 415 && error.code == "document_not_image")
        }
        let matched = try await client.initiateIDVAdditionalDocumentScan(reason: "Fine", front: try Self.ownPortrait())
        #expect(matched.biometricResult?.displayText == "MATCHED")
        await EventLog.settled(client)
        #expect(results.values == [240, 415, -1, 0])
        #expect(try live.identity.attemptsLeft(userID: userID, factor: .biometric) == 5)
    }
}

/// A flag a test flips while handlers read it.
final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var flag = false
    var value: Bool {
        get { lock.withLock { flag } }
        set { lock.withLock { flag = newValue } }
    }
}

extension RawAPI {
    /// Opens a document scan (workflow 7) and confirms its start.
    func documentScan(bearer: String) async throws -> DocumentCaptureInfo {
        let transaction: IDVTransactionInfo = try await post("/v1/idv/transactions", IDVInitiateRequest(workflow: 7), bearer: bearer)
        #expect(transaction.result == nil, "the transaction ended at once: \(String(describing: transaction.result?.statusCode))")
        return try await post("/v1/idv/transactions/\(transaction.idvAuditTransactionID)/confirm", Empty(), bearer: bearer)
    }
}
