import CustosAPI
import CustosCore
import CustosFakes
import CustosTestSupport
import Foundation
import Testing

@testable import CustosStore

@Suite("OpenID Connect stores")
struct OIDCStoreTests {
    @Test("OIDC conformance, in memory", arguments: OIDCCheck.allCases)
    func memory(_ check: OIDCCheck) throws {
        try check.run(.memory)
    }

    @Test("OIDC conformance, SQLite", arguments: OIDCCheck.allCases)
    func sqlite(_ check: OIDCCheck) throws {
        try check.run(.sqlite)
    }
}

@Suite(
    "PostgreSQL OpenID Connect stores",
    .enabled(if: TestEnvironment.postgresURL != nil, "CUSTOS_TEST_DATABASE_URL is not set; run under scripts/with-postgres.sh to test PostgreSQL")
)
struct PostgresOIDCStoreTests {
    @Test("OIDC conformance", arguments: OIDCCheck.allCases)
    func conformance(_ check: OIDCCheck) throws {
        try check.run(.postgresql)
    }
}

/// A store with the OpenID Connect port besides every other: what these checks run on.
typealias OIDCConformingStore = ConformingStore & OIDCStore

/// OpenID Connect clients, pending authorizations, grants, codes, refresh tokens, client
/// assertions and the devices' sign counter (migration 12), on every store. Each check starts
/// on fresh data; dates are whole seconds from `testNow`, so they compare equal after the
/// millisecond round trip.
enum OIDCCheck: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case clientsSaveListDelete
    case pendingAuthorizationTakenOnce
    case codeRedeemedOnce
    case refreshTokenUsedOnce
    case grantRevokedOnce
    case clientAssertionRecordedOnce
    case signCountOnlyAdvances
    case purgeRemovesExpired
    case userDeleteCascades
    case concurrentRedeemHasOneWinner

    var testDescription: String { rawValue }

    func run(_ kind: StoreKind) throws {
        if self == .concurrentRedeemHasOneWinner {
            return try withNodes(kind, Self.concurrentRedeem)
        }
        try withAnyStore(kind) { (conforming: any ConformingStore, _: any StoreNodes) -> Void in
            let store = try Self.oidc(conforming)
            switch self {
            case .clientsSaveListDelete: try Self.clients(store)
            case .pendingAuthorizationTakenOnce: try Self.pendingTakenOnce(store)
            case .codeRedeemedOnce: try Self.codeRedeemedOnce(store)
            case .refreshTokenUsedOnce: try Self.refreshTokenUsedOnce(store)
            case .grantRevokedOnce: try Self.grantRevokedOnce(store)
            case .clientAssertionRecordedOnce: try Self.clientAssertionRecordedOnce(store)
            case .signCountOnlyAdvances: try Self.signCountOnlyAdvances(store)
            case .purgeRemovesExpired: try Self.purgeRemovesExpired(store)
            case .userDeleteCascades: try Self.userDeleteCascades(store)
            case .concurrentRedeemHasOneWinner: break
            }
        }
    }

    // MARK: Fixtures

    /// The store as the OpenID Connect port (every store of the suite implements it).
    static func oidc(_ store: any ConformingStore) throws -> any OIDCConformingStore {
        try #require(store as? any OIDCConformingStore, "the store does not implement OIDCStore")
    }

    static func client(_ id: String, kind: OIDCClient.Kind = .confidential, createdIn seconds: TimeInterval = 0) -> OIDCClient {
        OIDCClient(
            id: id, name: "App \(id) “ünïcødé”", kind: kind, secretDigest: kind == .confidential ? digest("secret-\(id)") : nil,
            redirectURIs: ["https://\(id).example/cb?x=1&y=2", "com.example.\(id):/cb"], scopes: ["openid", "offline_access"],
            encryptionJWK: kind == .confidential ? #"{"crv":"P-256","kty":"EC","x":"ex","y":"ey"}"# : nil,
            assertionJWK: kind == .confidential ? #"{"crv":"P-256","kty":"EC","x":"ax","y":"ay"}"# : nil,
            createdAt: testNow.addingTimeInterval(seconds))
    }

    static func pending(_ id: String, user: String = "nia", expiresIn seconds: TimeInterval = 120) -> PendingAuthorization {
        let request = AuthorizationRequest(
            clientID: "app", redirectURI: "https://app.example/cb", scope: "openid offline_access", state: "s \"quoted\" ünï / ?",
            nonce: "n-\(id)", codeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", prompt: ["login"], maxAge: 300,
            acrValues: ["urn:custos:acr:3"], encryptIDToken: true)
        return PendingAuthorization(id: id, request: request, userID: user, deviceID: "d1", challengeDigest: digest("challenge-\(id)"),
                                    createdAt: testNow, expiresAt: testNow.addingTimeInterval(seconds))
    }

    static func grant(_ id: String, client: String = "app", user: String = "nia", createdIn seconds: TimeInterval = 0) -> OIDCGrant {
        OIDCGrant(id: id, clientID: client, userID: user, deviceID: "d1", scope: "openid offline_access", nonce: "n-\(id)",
                  authTime: testNow.addingTimeInterval(seconds - 1), level: .deviceSignature, encryptIDToken: true,
                  createdAt: testNow.addingTimeInterval(seconds))
    }

    /// A code whose digest is `digest(name)`.
    static func code(_ name: String, grant: String, expiresIn seconds: TimeInterval = 60) -> AuthorizationCode {
        AuthorizationCode(digest: digest(name), grantID: grant, redirectURI: "https://app.example/cb",
                          codeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", expiresAt: testNow.addingTimeInterval(seconds))
    }

    /// A refresh token whose digest is `digest(name)`.
    static func refresh(_ name: String, grant: String, expiresIn seconds: TimeInterval = 3600) -> RefreshToken {
        RefreshToken(digest: digest(name), grantID: grant, expiresAt: testNow.addingTimeInterval(seconds))
    }

    /// The user "nia" with the device "d1", and the confidential client "app".
    static func setUp(_ store: any OIDCConformingStore) throws {
        try store.createUser(ConformanceCheck.user("nia"))
        try store.addDevice(ConformanceCheck.device("d1", user: "nia"))
        try store.saveOIDCClient(client("app"))
    }

    /// Whether this call spent the record (false: a replay), and the record; nil when unknown.
    static func spend<Record: Sendable>(_ outcome: SpendOutcome<Record>?) -> (spent: Bool, record: Record)? {
        switch outcome {
        case .spent(let record)?: return (true, record)
        case .alreadySpent(let record)?: return (false, record)
        case nil: return nil
        }
    }

    /// "spent", "replay", or nil for an unknown record.
    static func outcome<Record: Sendable>(_ result: SpendOutcome<Record>?) -> String? {
        spend(result).map { $0.spent ? "spent" : "replay" }
    }

    // MARK: Checks

    static func clients(_ store: any OIDCConformingStore) throws {
        try store.createUser(ConformanceCheck.user("nia"))
        #expect(try store.oidcClients() == [])
        let app = client("app", createdIn: 10)
        let spa = client("spa", kind: .public, createdIn: -10)
        // Same millisecond: id order.
        let twinB = client("twin-b", createdIn: 20)
        let twinA = client("twin-a", createdIn: 20)
        for saved in [app, spa, twinB, twinA] { try store.saveOIDCClient(saved) }
        expectStoreError(.duplicate) { try store.saveOIDCClient(client("app", kind: .public)) }
        #expect(try store.oidcClient(id: "app") == app)
        #expect(try store.oidcClient(id: "spa") == spa)
        #expect(try store.oidcClient(id: "missing") == nil)
        #expect(try store.oidcClients() == [spa, app, twinA, twinB])

        // Deleting a client deletes its grants, with their codes and refresh tokens.
        try store.createGrant(grant("g1", client: "app"), code: code("c1", grant: "g1"))
        try store.createRefreshToken(refresh("r1", grant: "g1"))
        try store.createGrant(grant("g2", client: "spa"), code: code("c2", grant: "g2"))
        #expect(try store.deleteOIDCClient(id: "app"))
        #expect(try !store.deleteOIDCClient(id: "app"))
        #expect(try store.oidcClient(id: "app") == nil)
        #expect(try store.grant(id: "g1") == nil && store.refreshToken(digest: digest("r1")) == nil)
        #expect(try outcome(store.redeemAuthorizationCode(digest: digest("c1"), now: testNow)) == nil)
        #expect(try store.grant(id: "g2") != nil)
        #expect(try store.oidcClients() == [spa, twinA, twinB])
        // A grant needs its client and its user (foreign keys).
        expectStoreError(.failure, "unknown client") { try store.createGrant(grant("g3", client: "app"), code: code("c3", grant: "g3")) }
        expectStoreError(.failure, "unknown user") {
            try store.createGrant(grant("g4", client: "spa", user: "nobody"), code: code("c4", grant: "g4"))
        }
        #expect(try store.grant(id: "g3") == nil && store.grant(id: "g4") == nil)
    }

    static func pendingTakenOnce(_ store: any OIDCConformingStore) throws {
        try setUp(store)
        let first = pending("p1")
        try store.createPendingAuthorization(first)
        expectStoreError(.duplicate) { try store.createPendingAuthorization(first) }
        expectStoreError(.failure, "unknown user") { try store.createPendingAuthorization(pending("p2", user: "nobody")) }
        // One attempt per challenge: the first taker gets it, with its request intact.
        #expect(try store.takePendingAuthorization(id: "p1") == first)
        #expect(try store.takePendingAuthorization(id: "p1") == nil)
        #expect(try store.takePendingAuthorization(id: "p2") == nil)
        #expect(try store.takePendingAuthorization(id: "missing") == nil)
    }

    static func codeRedeemedOnce(_ store: any OIDCConformingStore) throws {
        try setUp(store)
        let granted = grant("g1")
        let issued = code("c1", grant: "g1")
        try store.createGrant(granted, code: issued)
        #expect(try store.grant(id: "g1") == granted)
        #expect(try store.grant(id: "missing") == nil)
        expectStoreError(.duplicate, "same grant id") { try store.createGrant(granted, code: code("c2", grant: "g1")) }
        expectStoreError(.duplicate, "same code digest") { try store.createGrant(grant("g2"), code: code("c1", grant: "g2")) }
        // Both or neither: the grant of a refused code is not stored, nor the code of a refused grant.
        #expect(try store.grant(id: "g2") == nil)
        #expect(try outcome(store.redeemAuthorizationCode(digest: digest("c2"), now: testNow)) == nil)

        let at = testNow.addingTimeInterval(5)
        var redeemed = issued
        redeemed.redeemedAt = at
        let firstCall = try store.redeemAuthorizationCode(digest: issued.digest, now: at)
        let first = try #require(spend(firstCall))
        #expect(first.spent && first.record == redeemed)
        // A replay is told apart from an unknown code, and keeps the first redemption's time.
        let replayCall = try store.redeemAuthorizationCode(digest: issued.digest, now: at.addingTimeInterval(1))
        let replay = try #require(spend(replayCall))
        #expect(!replay.spent && replay.record == redeemed)
        #expect(try outcome(store.redeemAuthorizationCode(digest: digest("unknown"), now: at)) == nil)
    }

    static func refreshTokenUsedOnce(_ store: any OIDCConformingStore) throws {
        try setUp(store)
        try store.createGrant(grant("g1"), code: code("c1", grant: "g1"))
        let issued = refresh("r1", grant: "g1")
        try store.createRefreshToken(issued)
        expectStoreError(.duplicate) { try store.createRefreshToken(issued) }
        expectStoreError(.failure, "unknown grant") { try store.createRefreshToken(refresh("r2", grant: "missing")) }
        #expect(try store.refreshToken(digest: issued.digest) == issued)
        #expect(try store.refreshToken(digest: digest("r2")) == nil)

        let at = testNow.addingTimeInterval(7)
        var used = issued
        used.usedAt = at
        let firstCall = try store.useRefreshToken(digest: issued.digest, now: at)
        let first = try #require(spend(firstCall))
        #expect(first.spent && first.record == used)
        let replayCall = try store.useRefreshToken(digest: issued.digest, now: at.addingTimeInterval(1))
        let replay = try #require(spend(replayCall))
        #expect(!replay.spent && replay.record == used)
        #expect(try store.refreshToken(digest: issued.digest) == used)
        #expect(try outcome(store.useRefreshToken(digest: digest("unknown"), now: at)) == nil)
    }

    static func grantRevokedOnce(_ store: any OIDCConformingStore) throws {
        try setUp(store)
        try store.createGrant(grant("g1"), code: code("c1", grant: "g1"))
        try store.createRefreshToken(refresh("r1", grant: "g1"))
        #expect(try store.revokeGrant(id: "g1", at: testNow.addingTimeInterval(9)))
        #expect(try !store.revokeGrant(id: "g1", at: testNow.addingTimeInterval(10)))
        #expect(try !store.revokeGrant(id: "missing", at: testNow))
        #expect(try store.grant(id: "g1")?.revokedAt == testNow.addingTimeInterval(9))
        // Its code and tokens stay, so that a replay of one is still recognised.
        #expect(try store.refreshToken(digest: digest("r1")) != nil)
        #expect(try outcome(store.redeemAuthorizationCode(digest: digest("c1"), now: testNow)) == "spent")
    }

    static func clientAssertionRecordedOnce(_ store: any OIDCConformingStore) throws {
        #expect(try store.recordClientAssertion(digest: digest("jti-1"), expiresAt: testNow.addingTimeInterval(60)))
        #expect(try !store.recordClientAssertion(digest: digest("jti-1"), expiresAt: testNow.addingTimeInterval(120)))
        #expect(try store.recordClientAssertion(digest: digest("jti-2"), expiresAt: testNow.addingTimeInterval(60)))
        // Inside an atomic block a replay answers false and leaves the block usable.
        let (replayed, fresh) = try store.atomically {
            (try store.recordClientAssertion(digest: digest("jti-2"), expiresAt: testNow.addingTimeInterval(60)),
             try store.recordClientAssertion(digest: digest("jti-3"), expiresAt: testNow.addingTimeInterval(60)))
        }
        #expect(!replayed && fresh)
        #expect(try !store.recordClientAssertion(digest: digest("jti-3"), expiresAt: testNow.addingTimeInterval(60)))
    }

    static func signCountOnlyAdvances(_ store: any OIDCConformingStore) throws {
        try setUp(store)
        #expect(try store.device(id: "d1")?.signCount == 0)
        #expect(try store.advanceSignCount(deviceID: "d1", to: 0), "0 → 0: an authenticator without a counter")
        #expect(try store.advanceSignCount(deviceID: "d1", to: 5), "0 → 5")
        #expect(try !store.advanceSignCount(deviceID: "d1", to: 5), "a repeated count")
        #expect(try !store.advanceSignCount(deviceID: "d1", to: 3), "a count that went back")
        #expect(try !store.advanceSignCount(deviceID: "d1", to: 0), "a counter that went back to 0")
        #expect(try store.advanceSignCount(deviceID: "d1", to: 6), "5 → 6")
        #expect(try store.device(id: "d1")?.signCount == 6)
        #expect(try !store.advanceSignCount(deviceID: "missing", to: 1))
        // The counter round-trips through addDevice too, up to its largest value.
        var counted = ConformanceCheck.device("d2", user: "nia")
        counted.signCount = .max
        try store.addDevice(counted)
        #expect(try store.device(id: "d2") == counted)
        #expect(try !store.advanceSignCount(deviceID: "d2", to: .max))
    }

    static func purgeRemovesExpired(_ store: any OIDCConformingStore) throws {
        try setUp(store)
        #expect(try store.purgeOIDC(before: testNow) == 0)
        try store.createPendingAuthorization(pending("p-old", expiresIn: 30))
        try store.createPendingAuthorization(pending("p-live", expiresIn: 300))
        // Old, its code expired, no refresh token: goes.
        try store.createGrant(grant("g-old"), code: code("c-old", grant: "g-old"))
        // Old, but a live refresh token keeps it.
        try store.createGrant(grant("g-kept"), code: code("c-kept", grant: "g-kept"))
        try store.createRefreshToken(refresh("r-live", grant: "g-kept"))
        // Old, and its only refresh token expired: goes.
        try store.createGrant(grant("g-spent"), code: code("c-spent", grant: "g-spent"))
        try store.createRefreshToken(refresh("r-old", grant: "g-spent", expiresIn: 90))
        // Created after the cutoff, with a live code: stays.
        try store.createGrant(grant("g-new", createdIn: 150), code: code("c-new", grant: "g-new", expiresIn: 300))
        #expect(try store.recordClientAssertion(digest: digest("jti-old"), expiresAt: testNow.addingTimeInterval(50)))
        #expect(try store.recordClientAssertion(digest: digest("jti-live"), expiresAt: testNow.addingTimeInterval(500)))

        // p-old; c-old, c-kept, c-spent; r-old; jti-old; g-old, g-spent.
        #expect(try store.purgeOIDC(before: testNow.addingTimeInterval(100)) == 8)
        #expect(try store.purgeOIDC(before: testNow.addingTimeInterval(100)) == 0)
        #expect(try store.grant(id: "g-old") == nil && store.grant(id: "g-spent") == nil)
        #expect(try store.grant(id: "g-kept") != nil && store.grant(id: "g-new") != nil)
        #expect(try store.refreshToken(digest: digest("r-old")) == nil && store.refreshToken(digest: digest("r-live")) != nil)
        #expect(try outcome(store.redeemAuthorizationCode(digest: digest("c-kept"), now: testNow)) == nil)
        #expect(try outcome(store.redeemAuthorizationCode(digest: digest("c-new"), now: testNow)) == "spent")
        // A purged jti may be recorded again; a live one may not.
        #expect(try store.recordClientAssertion(digest: digest("jti-old"), expiresAt: testNow.addingTimeInterval(600)))
        #expect(try !store.recordClientAssertion(digest: digest("jti-live"), expiresAt: testNow.addingTimeInterval(600)))
        #expect(try store.takePendingAuthorization(id: "p-old") == nil)
        #expect(try store.takePendingAuthorization(id: "p-live") != nil)
        // g-kept's refresh token rotated, the spent one kept till it expires: the grant goes
        // with the last one only.
        try store.createRefreshToken(refresh("r-next", grant: "g-kept", expiresIn: 400))
        #expect(try store.purgeOIDC(before: testNow.addingTimeInterval(410)) >= 1)
        #expect(try store.grant(id: "g-kept") != nil)
        #expect(try store.purgeOIDC(before: testNow.addingTimeInterval(10_000)) >= 2)
        #expect(try store.grant(id: "g-kept") == nil && store.grant(id: "g-new") == nil)
    }

    static func userDeleteCascades(_ store: any OIDCConformingStore) throws {
        try setUp(store)
        try store.createUser(ConformanceCheck.user("other"))
        try store.createPendingAuthorization(pending("p1"))
        try store.createPendingAuthorization(pending("p2", user: "other"))
        try store.createGrant(grant("g1"), code: code("c1", grant: "g1"))
        try store.createRefreshToken(refresh("r1", grant: "g1"))
        try store.createGrant(grant("g2", user: "other"), code: code("c2", grant: "g2"))
        #expect(try store.deleteUser(id: "nia"))
        #expect(try store.takePendingAuthorization(id: "p1") == nil)
        #expect(try store.grant(id: "g1") == nil && store.refreshToken(digest: digest("r1")) == nil)
        #expect(try outcome(store.redeemAuthorizationCode(digest: digest("c1"), now: testNow)) == nil)
        // Another user's records, and the client, stay.
        #expect(try store.grant(id: "g2") != nil && store.oidcClient(id: "app") != nil)
        #expect(try store.takePendingAuthorization(id: "p2") != nil)
    }

    /// Two nodes redeem one code at once: one redemption, every other call a replay.
    static func concurrentRedeem(_ harness: any StoreNodes) throws {
        let nodes: [any OIDCConformingStore] = [try oidc(harness.node()), try oidc(harness.node())]
        defer { nodes.forEach { $0.close() } }
        try setUp(nodes[0])
        try nodes[0].createGrant(grant("g1"), code: code("c1", grant: "g1"))
        let results = runConcurrently(20) { index -> String in
            try outcome(nodes[index % nodes.count].redeemAuthorizationCode(digest: digest("c1"), now: testNow)) ?? "unknown"
        }
        let failures = results.filter { if case .failure = $0 { return true } else { return false } }
        #expect(failures.isEmpty, "errors: \(failures)")
        let outcomes = results.compactMap { try? $0.get() }
        #expect(outcomes.filter { $0 == "spent" }.count == 1)
        #expect(outcomes.filter { $0 == "replay" }.count == 19)
    }
}
