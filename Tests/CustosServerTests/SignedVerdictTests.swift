import CustosAPI
import CustosCore
import CustosCrypto
import CustosCryptoServices
import CustosTestSupport
import Foundation
import Testing

/// The relying party verifies a verdict without trusting the app: the app's answer carries
/// the decision and a signed result, the evidence goes to the relying party's API, and an
/// outside verifier (PyJWT) checks the signature against the JWKS.
@Suite(needsFaces, .enabled(if: OutsideClients.shouldRun, Comment(rawValue: OutsideClients.missingMessage)))
struct SignedVerdictTests {
    static let nonce = "rp-nonce-42"

    /// Starts workflow 8 as the app would, with the relying party's nonce, and answers the challenge.
    func authenticate(_ api: RawAPI, bearer: String, frames: [Data], live: LiveServer) async throws -> IDVResultResponse {
        let started: IDVTransactionInfo = try await api.post("/v1/idv/transactions",
                                                             IDVInitiateRequest(workflow: 8, reason: "Pay 10 EUR", rpNonce: Self.nonce),
                                                             bearer: bearer)
        let challenge: LivenessChallengeInfo = try await api.post("/v1/idv/transactions/\(started.idvAuditTransactionID)/confirm",
                                                                  RawAPI.Empty(), bearer: bearer)
        live.clock.advance(by: 2)
        return try await api.post("/v1/idv/transactions/\(started.idvAuditTransactionID)/frames",
                                  IDVFramesRequest(nonce: challenge.nonce, frames: uploads(frames)), bearer: bearer)
    }

    /// `audience` nil: the relying party that created the user (the live server's `rp` key).
    func verify(_ live: LiveServer, _ token: String, audience: String? = nil,
                nonce: String = Self.nonce) throws -> (status: Int32, output: String) {
        // The test clock runs ahead of the verifier's (captures move it on): allow that much skew.
        try OutsideClients.run("verify_signed_result.py", ["--leeway", String(Int(live.clock.offset) + 5),
                                                            live.baseURL.absoluteString + "/.well-known/jwks.json",
                                                            LiveServer.verdictSigning.issuer, audience ?? live.relyingPartyKey.id, token, nonce])
    }

    @Test(arguments: StoreKind.available)
    func theRelyingPartyVerifiesTheVerdictWithoutTrustingTheApp(kind: StoreKind) async throws {
        let live = try LiveServer(store: LiveServer.store(kind), idv: IDVPolicies.only(.blink), resultDetail: false)
        defer { live.stop() }
        let (client, userID) = try await live.enrolledUser()
        let bearer = try #require(client.session.sessionToken)
        let api = RawAPI(base: live.baseURL)
        let rpKey = live.relyingPartySecret

        let matched = try await authenticate(api, bearer: bearer, frames: try FaceFixture.frames("blink_selfie", 38...50), live: live)
        // The app learns the decision only: no distance, threshold, score or liveness reason to tune a spoof with.
        #expect(matched.biometricResult == BiometricResultInfo(displayText: "MATCHED"))
        let token = try #require(matched.signedResult)

        // Our own verifier, with the key the JWKS names.
        let jwks = try JSONDecoder().decode(JWKSet.self, from: try await api.getData("/.well-known/jwks.json"))
        let kid = try #require(try JWS.unverifiedHeader(token).kid)
        let verified = try JWS.verify(token, key: try #require(jwks.key(withID: kid)).p256PublicKey())
        let claims = try JSONSerialization.jsonObject(with: verified.payload) as? [String: Any]
        #expect(claims?["decision"] as? String == "MATCHED" && claims?["sub"] as? String == userID)
        #expect(claims?["idv_audit_transaction_id"] as? String == matched.idvAuditInfo.idvAuditTransactionID)

        // PyJWT: valid for its audience and nonce; refused for another audience, another nonce, or tampered.
        let outside = try verify(live, token)
        #expect(outside.status == 0, "\(outside.output)")
        #expect(outside.output.contains("\"decision\": \"MATCHED\"") && outside.output.contains("\"workflow\": 8"))
        #expect(try verify(live, token, audience: "another-bank").status == 1)
        #expect(try verify(live, token, nonce: "another-request").status == 1)
        var parts = token.split(separator: ".").map(String.init)
        let forged = try JSONSerialization.data(withJSONObject: (claims ?? [:]).merging(["sub": "mallory"]) { $1 }, options: [.sortedKeys])
        parts[1] = forged.base64URLEncodedString
        #expect(try verify(live, parts.joined(separator: ".")).status == 1)

        // The relying party's view holds the evidence, by API key only.
        let path = "/v1/idv/transactions/\(matched.idvAuditInfo.idvAuditTransactionID)/verdict"
        let view: IDVVerdictResponse = try await api.get(path, bearer: rpKey)
        #expect(view.decision == "MATCHED" && view.livenessPassed == true && view.statusCode == 100 && view.userID == userID)
        #expect((view.distance ?? 1) < (view.threshold ?? 0) && view.signedResult == token && view.completedAt != nil)
        let (anonymous, _) = try await api.getStatus(path, bearer: bearer)
        #expect(anonymous == 401)

        // A replayed take: the app hears LIVENESS_FAILED, the relying party why.
        let replayed = try await authenticate(api, bearer: bearer, frames: try FaceFixture.frames("blink_selfie", 38...50), live: live)
        #expect(replayed.biometricResult == BiometricResultInfo(displayText: "LIVENESS_FAILED"))
        let why: IDVVerdictResponse = try await api.get("/v1/idv/transactions/\(replayed.idvAuditInfo.idvAuditTransactionID)/verdict",
                                                        bearer: rpKey)
        #expect(why.livenessPassed == false && why.livenessReason == "replay" && why.attemptsLeft == 4)
        let failed = try verify(live, try #require(replayed.signedResult))
        #expect(failed.status == 0 && failed.output.contains("\"liveness_passed\": false"), "\(failed.output)")
    }

    @Test func rotationPublishesTheNewKeyBeforeItSignsAndKeepsTheOld() throws {
        let store = try LiveServer.store(.sqlite)
        defer { store.close() }
        let ring = SigningKeyRing(store: store, masterKey: LiveServer.masterKey, refreshInterval: 0)
        let now = Date()
        func kids(at date: Date, _ prefix: String = "sk_") throws -> [String] {
            try JSONDecoder().decode(JWKSet.self, from: try ring.publicKeySet(now: date)).keys.compactMap(\.kid).filter { $0.hasPrefix(prefix) }
        }
        func signer(_ algorithm: SigningAlgorithm, at date: Date) throws -> String? {
            try JWS.unverifiedHeader(try ring.sign(payload: Data("{}".utf8), type: "JWT", algorithm: algorithm, now: date)).kid
        }
        // A new database: the set a verifier fetches first already holds the keys that will sign, one per algorithm.
        let published = try kids(at: now), publishedRSA = try kids(at: now, "rk_")
        let firstKid = try signer(.es256, at: now), firstRSA = try signer(.rs256, at: now)
        #expect(published.count == 1 && published.first == firstKid && publishedRSA.count == 1 && publishedRSA.first == firstRSA)
        let rsaKey = try #require(try JSONDecoder().decode(JWKSet.self, from: try ring.publicKeySet(now: now)).key(withID: firstRSA ?? ""))
        #expect(rsaKey.kty == "RSA" && rsaKey.alg == "RS256" && rsaKey.use == "sig" && rsaKey.e == "AQAB" && (rsaKey.n?.count ?? 0) >= 342)
        // The ring verifies what it signed with either algorithm, and nothing altered.
        let rs256 = try ring.sign(payload: Data(#"{"a":1}"#.utf8), type: "JWT", algorithm: .rs256, now: now)
        #expect(try ring.verify(rs256, now: now).payload == Data(#"{"a":1}"#.utf8))
        // The signature's last byte changed (never to the byte it already was): it fails to verify.
        let tampered = String(rs256.dropLast(2)) + (rs256.hasSuffix("AA") ? "BA" : "AA")
        #expect(throws: CryptoError.signatureVerificationFailed) { try ring.verify(tampered, now: now) }

        let newKid = try ring.rotate(now: now, publishFor: 60, retainFor: 600)
        let newRSA = try #require(try kids(at: now, "rk_").last)
        #expect(try kids(at: now) == [firstKid, newKid].compactMap { $0 } && newRSA != firstRSA)
        // Published, not yet signing, for each algorithm.
        #expect(try signer(.es256, at: now.addingTimeInterval(30)) == firstKid)
        #expect(try signer(.rs256, at: now.addingTimeInterval(30)) == firstRSA)
        #expect(try signer(.es256, at: now.addingTimeInterval(61)) == newKid)
        #expect(try signer(.rs256, at: now.addingTimeInterval(61)) == newRSA)
        // The old keys stay published until what they signed has expired, then leave.
        #expect(try kids(at: now.addingTimeInterval(600)).contains(firstKid ?? ""))
        #expect(try kids(at: now.addingTimeInterval(600), "rk_").contains(firstRSA ?? ""))
        #expect(try kids(at: now.addingTimeInterval(661)) == [newKid])
        #expect(try kids(at: now.addingTimeInterval(661), "rk_") == [newRSA])
        // Another master key cannot open the stored private keys.
        let stranger = SigningKeyRing(store: store, masterKey: MasterKey.generate(), refreshInterval: 0)
        #expect(throws: CryptoError.authenticationFailed) {
            try stranger.sign(payload: Data("{}".utf8), type: "JWT", now: now.addingTimeInterval(61))
        }
    }

    /// Two nodes start on a new database and each finds the ring empty: both first keys stay
    /// published, so what either signed keeps verifying.
    @Test func twoFirstKeysAtOnceBothStayPublished() throws {
        let store = try LiveServer.store(.sqlite)
        defer { store.close() }
        let now = Date()
        let nodes = (0..<2).map { _ in SigningKeyRing(store: store, masterKey: LiveServer.masterKey, refreshInterval: 0) }
        let signed = try nodes.map { try JWS.unverifiedHeader(try $0.sign(payload: Data("{}".utf8), type: "JWT", now: now)).kid }
        // The second node may find the first's key already there; either way every key that signed is published.
        let published = Set(try JSONDecoder().decode(JWKSet.self, from: try nodes[0].publicKeySet(now: now.addingTimeInterval(600))).keys
            .compactMap(\.kid))
        #expect(signed.allSatisfy { published.contains($0 ?? "") })
        // A first key made on a second node after the first already signed leaves the first's published too.
        let late = try nodes[1].rotate(now: now, publishFor: 0, retainFor: 24 * 3600)
        let after = Set(try JSONDecoder().decode(JWKSet.self, from: try nodes[0].publicKeySet(now: now.addingTimeInterval(600))).keys
            .compactMap(\.kid))
        #expect(signed.allSatisfy { after.contains($0 ?? "") } && after.contains(late))
    }
}
