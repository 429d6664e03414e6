import CustosAPI
import CustosCore
import CustosSDK
import CustosTestSupport
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The standard claims a relying party states about its user (`PUT /v1/users/{id}/claims`),
/// and UserInfo releasing them to an OpenID client by the scopes granted (OIDC Core §5.4).
@Suite struct UserClaimsTests {
    static let alice = UserClaims(name: "Alice Liddell", givenName: "Alice", familyName: "Liddell", locale: "en-GB",
                                  email: "alice@example.com", emailVerified: true, phoneNumber: "+447700900123",
                                  address: UserClaims.Address(locality: "Oxford", country: "GB"))

    @Test(arguments: StoreKind.available)
    func theOwnerSetsAndReadsTheClaimsAndNoOtherKeySeesThem(kind: StoreKind) async throws {
        let live = try LiveServer.make(kind)
        defer { live.stop() }
        let owner = try live.admin(), other = try live.otherRelyingParty()
        let userID = "claims-\(UUID().uuidString.prefix(8))"
        _ = try await owner.createUser(userID)
        #expect(try await owner.userClaims(userID) == UserClaims())

        var sent = Self.alice
        sent.updatedAt = 1  // the server's field: whatever is sent, the time of the change is kept
        let before = Int64(Date().timeIntervalSince1970)
        let stored = try await owner.setUserClaims(userID, sent)
        let stamped = try #require(stored.updatedAt)
        #expect(stamped >= before - 1)
        var expected = Self.alice
        expected.updatedAt = stamped
        #expect(stored == expected)
        #expect(try await owner.userClaims(userID) == expected)

        // Another relying party's key gets what an unknown id gets, for reading and writing.
        await expectError("user_not_found") { try await other.userClaims(userID) }
        await expectError("user_not_found") { try await other.setUserClaims(userID, UserClaims(email: "mallory@example.com")) }
        await expectError("user_not_found") { try await owner.setUserClaims("nobody-\(UUID().uuidString.prefix(6))", Self.alice) }
        #expect(try await owner.userClaims(userID).email == "alice@example.com")

        // The audit names the claims, never their values.
        let events = try live.store.auditEvents(afterSequence: 0, limit: 100, userID: userID, transactionID: nil)
        let event = try #require(events.last { $0.kind == AuditKind.userClaimsChanged.rawValue })
        #expect(event.details["claims"] == "address email email_verified family_name given_name locale name phone_number")
        #expect(!event.details.values.contains { $0.contains("alice@example.com") || $0.contains("Liddell") })

        // PUT replaces: what is left out is gone; an empty object clears them all.
        #expect(try await owner.setUserClaims(userID, UserClaims(nickname: "Al")).email == nil)
        #expect(try await owner.setUserClaims(userID, UserClaims()) == UserClaims())
        #expect(try await owner.userClaims(userID) == UserClaims())
    }

    /// The status and body of a request through the server's exchange.
    static func send(_ live: LiveServer, _ method: String, _ path: String, body: Data?, bearer: String) async throws -> (Int, Data) {
        var request = URLRequest(url: live.baseURL.appendingPathComponent(path), timeoutInterval: TestEnvironment.requestTimeout)
        request.httpMethod = method
        request.httpBody = body
        if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization")
        let (data, response) = try await live.exchange.exchange(request)
        return (response.statusCode, data)
    }

    /// Each bad claim is a 422 naming it; nothing is stored.
    @Test func badClaimsAreRefusedByName() async throws {
        let live = try LiveServer.make(.sqlite)
        defer { live.stop() }
        let owner = try live.admin()
        let userID = "claims-\(UUID().uuidString.prefix(8))"
        _ = try await owner.createUser(userID)
        _ = try await owner.setUserClaims(userID, Self.alice)
        let refused: [(body: String, code: String, field: String)] = [
            (#"{"email":"alice.example.com"}"#, "invalid_field", "email"),
            (#"{"email":"alice@example.com "}"#, "invalid_field", "email"),
            (#"{"emial":"alice@example.com"}"#, "invalid_field", "emial"),
            (#"{"email":"alice@example.com","email_verified":"yes"}"#, "wrong_type", "email_verified"),
            (#"{"email_verified":true}"#, "invalid_field", "email_verified"),
            (#"{"phone_number":"07700 900123"}"#, "invalid_field", "phone_number"),
            (#"{"phone_number_verified":false}"#, "invalid_field", "phone_number_verified"),
            (#"{"name":"Alice \u202Egnp.exe"}"#, "invalid_field", "name"),
            (#"{"name":"  "}"#, "invalid_field", "name"),
            (#"{"name":"A\nB"}"#, "invalid_field", "name"),
            (#"{"picture":"javascript:alert(1)"}"#, "invalid_field", "picture"),
            (#"{"website":"/relative"}"#, "invalid_field", "website"),
            (#"{"birthdate":"1990-13-01"}"#, "invalid_field", "birthdate"),
            (#"{"zoneinfo":"../../etc/passwd"}"#, "invalid_field", "zoneinfo"),
            (#"{"locale":"en GB"}"#, "invalid_field", "locale"),
            (#"{"address":{"country":"GB","city":"Oxford"}}"#, "invalid_field", "address.city"),
            (#"{"given_name":"\#(String(repeating: "a", count: 256))"}"#, "invalid_field", "given_name"),
            (#"["alice@example.com"]"#, "wrong_type", "(root)"),
            // A line break after a value that is otherwise good, and what hides or reorders text.
            (#"{"phone_number":"+33612345678\n"}"#, "invalid_field", "phone_number"),
            (#"{"locale":"fr-CA\r\n"}"#, "invalid_field", "locale"),
            (#"{"zoneinfo":"Europe/Paris\u2028"}"#, "invalid_field", "zoneinfo"),
            (#"{"name":"Alice\u2028Admin"}"#, "invalid_field", "name"),
            (#"{"email":"alice@example.com\u202E"}"#, "invalid_field", "email"),
            (#"{"email":"ali\u200Bce@example.com"}"#, "invalid_field", "email"),
            (#"{"nickname":"al\uFEFFice"}"#, "invalid_field", "nickname"),
            (#"{"birthdate":"2001-02-29"}"#, "invalid_field", "birthdate"),
            (#"{"birthdate":"0000"}"#, "invalid_field", "birthdate"),
            (#"{"website":"https://bank.example@evil.example/"}"#, "invalid_field", "website"),
        ]
        for (body, code, field) in refused {
            let (status, answer) = try await Self.send(live, "PUT", "/v1/users/\(userID)/claims", body: Data(body.utf8), bearer: live.relyingPartySecret)
            let error = try #require(try JSONSerialization.jsonObject(with: answer) as? [String: [String: String]])["error"]
            #expect(status == 422 && error?["code"] == code, "\(body): \(status) \(String(decoding: answer, as: UTF8.self))")
            #expect(error?["message"]?.contains(field) == true, "\(body): \(String(decoding: answer, as: UTF8.self))")
        }
        var kept = Self.alice
        kept.updatedAt = try await owner.userClaims(userID).updatedAt
        #expect(try await owner.userClaims(userID) == kept)
        // Names written with the joiners of Persian and emoji, a leap day, a withheld year and a
        // long language tag are taken; so are a multi-line street address and an address of
        // empty parts (dropped).
        let written = UserClaims(name: "\u{0645}\u{06CC}\u{200C}\u{0631}\u{0648}\u{062F}", nickname: "👩\u{200D}💻",
                                 birthdate: "0000-02-29", locale: "zh-Hant-TW-x-private")
        #expect(try await owner.setUserClaims(userID, written).nickname == "👩\u{200D}💻")
        #expect(try await owner.setUserClaims(userID, UserClaims(birthdate: "2000-02-29")).birthdate == "2000-02-29")
        let multiLine = try await owner.setUserClaims(userID, UserClaims(address: UserClaims.Address(streetAddress: "1 High St\nFlat 2")))
        #expect(multiLine.address?.streetAddress == "1 High St\nFlat 2")
        #expect(try await owner.setUserClaims(userID, UserClaims(address: UserClaims.Address())).address == nil)
    }

    /// Any relying party may ask any user to approve by CIBA: its token, even with the claim
    /// scopes and the user's approval, reads `sub` alone.
    @Test(arguments: StoreKind.available)
    func aCIBATokenReadsNoClaims(kind: StoreKind) async throws {
        let fixture = try await StepUpFixture.make(kind)
        defer { fixture.live.stop() }
        _ = try await fixture.live.admin(scope: .admin).setUserClaims(fixture.userID, Self.alice)
        let flows = CIBAFlowTests()
        let other = try flows.client(fixture)
        let authReqID = try await other.start(fixture.userID, extra: ["scope": "openid profile email phone address"])
        try await flows.answer(fixture, "approve")
        let (status, tokens) = try await other.token(authReqID)
        #expect(status == 200, "\(tokens)")
        let (answered, body) = try await Self.send(fixture.live, "GET", "/oauth2/userinfo", body: nil,
                                                   bearer: try #require(tokens["access_token"] as? String))
        #expect(answered == 200)
        #expect(Set((try JSONSerialization.jsonObject(with: body) as? [String: Any] ?? [:]).keys) == ["sub"], "\(String(decoding: body, as: UTF8.self))")
    }

    /// UserInfo releases only the claims of the scopes the grant holds, read when asked (a
    /// change the relying party made since the sign-in is what is released).
    @Test(arguments: StoreKind.available)
    func userInfoReleasesTheClaimsOfTheGrantedScopes(kind: StoreKind) async throws {
        let fixture = try await SignInFixture.make(kind)
        defer { fixture.live.stop() }
        let rp = try fixture.live.admin(scope: .admin)
        _ = try await rp.setUserClaims(fixture.userID, Self.alice)
        let device = try fixture.device()
        func userInfo(_ scope: String) async throws -> [String: Any] {
            let response = try await device.authenticateBoundUser(BoundUserAuthenticationRequest(redirectURI: SignInFixture.redirect, scope: scope))
            let tokens = try await device.exchangeToken(response)
            let (status, body) = try await Self.send(fixture.live, "GET", "/oauth2/userinfo", body: nil, bearer: tokens.accessToken)
            #expect(status == 200)
            return try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        }
        #expect(Set(try await userInfo("openid").keys) == ["sub"])
        let email = try await userInfo("openid email")
        #expect(Set(email.keys) == ["sub", "email", "email_verified"] && email["email_verified"] as? Bool == true)
        let profile = try await userInfo("openid profile")
        #expect(Set(profile.keys) == ["sub", "name", "given_name", "family_name", "locale", "updated_at"])
        #expect(profile["updated_at"] is Int)
        let rest = try await userInfo("openid phone address")
        #expect(rest["phone_number"] as? String == "+447700900123" && (rest["address"] as? [String: String]) == ["locality": "Oxford", "country": "GB"])
        #expect(rest["email"] == nil && rest["name"] == nil)

        // The SDK reads the same answer back, claims beside sub.
        let typed = try JSONDecoder().decode(UserInfoResponse.self, from: JSONSerialization.data(withJSONObject: email))
        #expect(typed.sub == fixture.userID && typed.claims == UserClaims(email: "alice@example.com", emailVerified: true))
    }
}
