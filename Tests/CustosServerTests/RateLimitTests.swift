import CustosAPI
import CustosConfiguration
import CustosCore
import CustosServer
import CustosStore
import CustosTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// The authentication endpoints answer 429 with `Retry-After` past their limits: per client
/// address on sign-in, per user too on biometric uploads; limits several nodes share when they
/// share PostgreSQL.
@Suite struct RateLimitTests {
    /// A clock that stands still, so no window ends in the middle of a test.
    struct StoppedClock: CustosCore.Clock {
        let instant = Date(timeIntervalSince1970: 1_800_000_030)
        func now() -> Date { instant }
    }

    static func limiter(_ store: SQLStore, kind: StoreKind, perClient: Int, perUser: Int) -> RateLimiter {
        RateLimiter(counters: kind == .postgresql ? store : MemoryCounters(), clock: StoppedClock(),
                    policy: RateLimitPolicy(perClient: perClient, perUser: perUser, window: 60))
    }

    static func post(_ base: URL, _ path: String, _ body: some Encodable, bearer: String? = nil) async throws -> (Int, String?, ErrorEnvelope?) {
        var request = URLRequest(url: base.appendingPathComponent(path), timeoutInterval: TestEnvironment.requestTimeout)
        request.httpMethod = "POST"
        request.httpBody = try WireJSON.encoder().encode(body)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        return (http.statusCode, http.value(forHTTPHeaderField: "Retry-After"), try? JSONDecoder().decode(ErrorEnvelope.self, from: data))
    }

    @Test(arguments: StoreKind.available)
    func signInIsLimitedPerClientAddress(kind: StoreKind) async throws {
        let store = try LiveServer.store(kind)
        let live = try LiveServer(store: store, rateLimiter: Self.limiter(store, kind: kind, perClient: 3, perUser: 100))
        defer { live.stop() }
        let challenge = LoginChallengeRequest(userID: "nobody", deviceID: "dev_nobody")
        for _ in 0..<3 {
            let (status, _, _) = try await Self.post(live.baseURL, "/v1/login/challenge", challenge)
            #expect(status != 429)
        }
        let (status, retryAfter, envelope) = try await Self.post(live.baseURL, "/v1/login/challenge", challenge)
        #expect(status == 429)
        #expect(envelope?.error.code == "rate_limited")
        // The stopped clock stands 30 s into its minute.
        #expect(retryAfter == "30")
        // Login and activation share the sign-in budget of the address.
        let (loginStatus, _, _) = try await Self.post(live.baseURL, "/v1/login", LoginRequest(userID: "nobody", deviceID: "d", nonce: "n", signature: "s"))
        #expect(loginStatus == 429)
        // Health stays outside it, and the refusals are counted per route.
        let (metrics, _) = try await RawAPI(base: live.baseURL).getStatus("/metrics")
        #expect(metrics == 200)
        let text = String(decoding: try await RawAPI(base: live.baseURL).getData("/metrics"), as: UTF8.self)
        #expect(text.contains(#"custos_http_requests_total{method="POST",route="/v1/login/challenge",status="429"} 1"#))

        if kind == .postgresql {
            // A second node on the same database sees the same spent budget.
            let other = try LiveServer(store: store, rateLimiter: Self.limiter(store, kind: kind, perClient: 3, perUser: 100))
            defer { other.stop() }
            let (otherStatus, _, _) = try await Self.post(other.baseURL, "/v1/login/challenge", challenge)
            #expect(otherStatus == 429)
        }
    }

    @Test(arguments: StoreKind.available)
    func biometricUploadsAreLimitedPerUser(kind: StoreKind) async throws {
        let store = try LiveServer.store(kind)
        let live = try LiveServer(store: store, rateLimiter: Self.limiter(store, kind: kind, perClient: 100, perUser: 2))
        defer { live.stop() }
        let (first, _, _) = try await IdentityFlowTests.activatedUser(live)
        let (second, _, _) = try await IdentityFlowTests.activatedUser(live)
        let frames = IDVFramesRequest(nonce: "n", frames: [])
        for _ in 0..<2 {
            let (status, _, _) = try await Self.post(live.baseURL, "/v1/idv/transactions/none/frames", frames, bearer: first.session.sessionToken)
            #expect(status != 429)
        }
        let (spent, retryAfter, envelope) = try await Self.post(live.baseURL, "/v1/idv/transactions/none/frames", frames,
                                                               bearer: first.session.sessionToken)
        #expect(spent == 429 && retryAfter == "30" && envelope?.error.code == "rate_limited")
        // Another user from the same address still has a budget of their own.
        let (other, _, _) = try await Self.post(live.baseURL, "/v1/idv/transactions/none/frames", frames, bearer: second.session.sessionToken)
        #expect(other != 429)
        // A request without a session proves no user: it is refused as unauthenticated, counting against no one.
        let (anonymous, _, anonymousEnvelope) = try await Self.post(live.baseURL, "/v1/idv/transactions/none/frames", frames)
        #expect(anonymous == 401 && anonymousEnvelope?.error.code != "rate_limited")
    }
}
