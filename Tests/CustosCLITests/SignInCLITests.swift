import CustosAPI
import CustosCrypto
import CustosTestSupport
import Foundation
import Testing

/// OpenID Connect sign-in with the command line as the bound device, and a relying party written
/// with authlib, joserfc and jwcrypto (Tests/Clients/oidc_client.py) on the other side.
@Suite struct SignInCLITests {
    typealias Served = IdentityCLITests.Served

    func activatedProfile(_ served: Served, _ userID: String) throws -> String {
        try ClientCommandsCLITests().activatedProfile(served, userID)
    }

    /// `admin client create` with the admin key; the created client as JSON.
    func createClient(_ served: Served, _ arguments: [String]) throws -> OIDCClientInfo {
        let created = try CLI.run(["admin", "client", "create", "--json", "--server", served.server] + arguments,
                                  environment: ["CUSTOS_API_KEY": served.adminKey])
        #expect(created.status == 0, "\(created.stderr)")
        return try WireJSON.decoder().decode(OIDCClientInfo.self, from: Data(created.stdout.utf8))
    }

    /// A P-256 key pair of the relying party: the private key as a PEM file, the public as a JWK file.
    func keyPair(_ name: String) throws -> (pem: String, jwk: String) {
        let key = try P256.PrivateKey.generate()
        let directory = CLI.temporaryDirectory()
        let pem = directory + "/\(name).pem", jwk = directory + "/\(name).jwk"
        try Data(key.pemRepresentation.utf8).write(to: URL(fileURLWithPath: pem))
        try JSONEncoder().encode(JWK(publicKey: key.publicKey, kid: name, use: nil, alg: nil)).write(to: URL(fileURLWithPath: jwk))
        return (pem, jwk)
    }

    @Test(.enabled(if: OutsideClients.shouldRun, Comment(rawValue: OutsideClients.missingMessage)))
    func anOutsideRelyingPartySignsTheUserInWithTheBoundDevice() throws {
        let port = try NotificationCLITests().freePort()
        let issuer = "http://127.0.0.1:\(port)"
        // Every code of the run lives this long: far longer than a sign-in subprocess and its
        // exchange take under load, so no exchange races it. The client's expired-code check
        // waits past it (a wait only ever lasts longer, so that check holds at any speed).
        let codeLifetime = 30
        let served = try Served(extra: ["--idv=false", "--port", String(port), "--issuer", issuer,
                                        "--oidc-code-lifetime", String(codeLifetime)])
        defer { served.stop() }
        let profile = try activatedProfile(served, "olga")
        let redirect = "https://rp.example/callback"
        let encryption = try keyPair("rp-encryption"), signing = try keyPair("rp-assertion")
        let afterLogout = "https://rp.example/signed-out"
        let secretClient = try createClient(served, ["--name", "Bank web", "--type", "confidential", "--redirect-uri", redirect,
                                                     "--encryption-jwk", "@" + encryption.jwk, "--post-logout-redirect-uri", afterLogout])
        #expect(secretClient.postLogoutRedirectURIs == [afterLogout])
        #expect(secretClient.tokenEndpointAuthMethod == "client_secret_basic")
        let jwtClient = try createClient(served, ["--name", "Bank API", "--type", "confidential", "--redirect-uri", redirect,
                                                  "--assertion-jwk", "@" + signing.jwk])
        #expect(jwtClient.tokenEndpointAuthMethod == "private_key_jwt" && jwtClient.clientSecret == nil)

        let claims: [String: Any] = [
            "name": "Olga Ivanova", "given_name": "Olga", "family_name": "Ivanova", "email": "olga@example.com", "email_verified": true,
            "phone_number": "+33612345678", "address": ["locality": "Lyon", "country": "FR"],
        ]
        let setClaims = try CLI.run(["admin", "user", "set-claims", "olga",
                                     String(decoding: try JSONSerialization.data(withJSONObject: claims), as: UTF8.self),
                                     "--server", served.server], environment: ["CUSTOS_API_KEY": served.adminKey])
        #expect(setClaims.status == 0 && setClaims.stdout.contains(#""email" : "olga@example.com""#), "\(setClaims.stderr)\(setClaims.stdout)")
        let shown = try CLI.run(["admin", "user", "claims", "olga", "--server", served.server], environment: ["CUSTOS_API_KEY": served.adminKey])
        #expect(shown.status == 0 && shown.stdout.contains(#""phone_number" : "+33612345678""#), "\(shown.stderr)\(shown.stdout)")
        let notJSON = try CLI.run(["admin", "user", "set-claims", "olga", #"{"emial":"x@example.com"}"#, "--server", served.server],
                                  environment: ["CUSTOS_API_KEY": served.adminKey])
        #expect(notJSON.status == 2 && notJSON.stderr.contains("emial is not a claim this server keeps"), "\(notJSON.stderr)")
        let refused = try CLI.run(["admin", "user", "set-claims", "olga", #"{"email":"olga"}"#, "--server", served.server],
                                  environment: ["CUSTOS_API_KEY": served.adminKey])
        #expect(refused.status != 0 && refused.stderr.contains("invalid_field"), "\(refused.stderr)")
        let config: [String: Any] = [
            "claims": claims, "post_logout_redirect_uri": afterLogout,
            "issuer": issuer, "custos": CLI.binary.path, "profile": profile, "user_id": "olga", "redirect_uri": redirect,
            "client_id": secretClient.clientID, "client_secret": try #require(secretClient.clientSecret), "decryption_key": encryption.pem,
            "jwt_client_id": jwtClient.clientID, "jwt_key": signing.pem, "code_lifetime": codeLifetime,
        ]
        let configFile = CLI.temporaryDirectory() + "/oidc.json"
        try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: configFile))
        let outside = try OutsideClients.run("oidc_client.py", [configFile])
        #expect(outside.status == 0, "\(outside.output)")
        print(outside.output)
        for check in ["discovery", "id_token", "scope", "claims", "authorize_post", "userinfo", "refresh", "revocation", "logout", "code_reuse", "redirect_uri", "expired_code",
                      "encrypted_id_token", "token_verify", "private_key_jwt"] {
            #expect(outside.output.contains("\"\(check)\""), "\(check) was not checked: \(outside.output)")
        }
    }

    /// idpyoidc, unpatched, as a second outside relying party: discovery's full check (RS256
    /// offered, OpenID Connect Discovery §3), the code flow with PKCE, an RS256 ID token for a
    /// client that asks for it, userinfo, refresh, and idpyoidc's own refusals.
    @Test(.enabled(if: OutsideClients.shouldRun, Comment(rawValue: OutsideClients.missingMessage)))
    func idpyoidcSignsTheUserInWithAnRS256IDToken() throws {
        let port = try NotificationCLITests().freePort()
        let issuer = "http://127.0.0.1:\(port)"
        let served = try Served(extra: ["--idv=false", "--port", String(port), "--issuer", issuer])
        defer { served.stop() }
        let profile = try activatedProfile(served, "rhea")
        let redirect = "https://rp.example/callback"
        let afterLogout = "https://rp.example/signed-out"
        let client = try createClient(served, ["--name", "Bank web (idpyoidc)", "--type", "confidential", "--redirect-uri", redirect,
                                               "--id-token-alg", "RS256", "--post-logout-redirect-uri", afterLogout])
        #expect(client.tokenEndpointAuthMethod == "client_secret_basic" && client.idTokenSignedResponseAlg == "RS256")
        let config: [String: Any] = [
            "post_logout_redirect_uri": afterLogout,
            "issuer": issuer, "custos": CLI.binary.path, "profile": profile, "user_id": "rhea", "redirect_uri": redirect,
            "client_id": client.clientID, "client_secret": try #require(client.clientSecret),
        ]
        let configFile = CLI.temporaryDirectory() + "/idpyoidc.json"
        try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: configFile))
        let outside = try OutsideClients.run("idpyoidc_client.py", [configFile])
        #expect(outside.status == 0, "\(outside.output)")
        for check in ["discovery", "authorization", "id_token", "userinfo", "refresh", "refresh_reuse", "wrong_state", "wrong_iss",
                      "code_injection", "logout"] {
            #expect(outside.output.contains("\"\(check)\""), "\(check) was not checked: \(outside.output)")
        }
        #expect(outside.output.contains("RS256"), "\(outside.output)")
        // An unknown algorithm is refused at creation.
        let refused = try CLI.run(["admin", "client", "create", "--name", "x", "--redirect-uri", redirect, "--id-token-alg", "HS256",
                                   "--server", served.server], environment: ["CUSTOS_API_KEY": served.adminKey])
        #expect(refused.status != 0 && refused.stderr.contains("id_token_signed_response_alg"), "\(refused.stderr)")
    }

    @Test func theCommandLineSaysWhyASignInCannotHappen() throws {
        let port = try NotificationCLITests().freePort()
        let served = try Served(extra: ["--idv=false", "--port", String(port), "--issuer", "http://127.0.0.1:\(port)"])
        defer { served.stop() }
        let client = try createClient(served, ["--name", "App", "--redirect-uri", "com.example.app:/callback"])
        #expect(client.clientType == "public" && client.tokenEndpointAuthMethod == "none")
        let bound = ["signin", "--bound", "--client-id", client.clientID, "--redirect-uri", "com.example.app:/callback", "--yes"]

        // No profile: this device is bound to no one, and nothing else is tried.
        let unbound = try CLI.run(bound + ["--profile", CLI.temporaryDirectory() + "/none", "--server", served.server])
        #expect(unbound.status == 9 && unbound.stderr.contains("unknown_user"), "\(unbound.stderr)")

        let profile = try activatedProfile(served, "pia")
        let declined = try CLI.run(["signin", "--bound", "--client-id", client.clientID, "--redirect-uri", "com.example.app:/callback",
                                    "--profile", profile], stdin: "n\n")
        #expect(declined.status == 8 && declined.stderr.contains("local_authentication_cancelled"), "\(declined.stderr)")

        let signedIn = try CLI.run(bound + ["--profile", profile, "--json"])
        #expect(signedIn.status == 0, "\(signedIn.stderr)")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(signedIn.stdout.utf8)) as? [String: Any])
        let code = try #require(answer["code"] as? String), verifier = try #require(answer["code_verifier"] as? String)
        let exchange = ["token", "exchange", "--code", code, "--verifier", verifier, "--client-id", client.clientID,
                        "--redirect-uri", "com.example.app:/callback", "--nonce", try #require(answer["nonce"] as? String),
                        "--server", served.server, "--json"]
        let tokens = try CLI.run(exchange)
        #expect(tokens.status == 0, "\(tokens.stderr)")
        let idToken = try #require(try JSONSerialization.jsonObject(with: Data(tokens.stdout.utf8)) as? [String: Any])["id_token"] as? String
        let verified = try CLI.run(["token", "verify", try #require(idToken), "--client-id", client.clientID, "--server", served.server])
        #expect(verified.status == 0 && verified.stdout.contains("sub pia"), "\(verified.stdout) \(verified.stderr)")
        // The same code again: refused by the server.
        let again = try CLI.run(exchange)
        #expect(again.status == 10 && again.stderr.contains("invalid_grant"), "\(again.stderr)")

        // A revoked device is refused, and said so.
        let devices = try served.admin(["device", "list", "pia", "--json"])
        let deviceID = try #require(try WireJSON.decoder().decode(DeviceList.self, from: Data(devices.stdout.utf8)).devices.first?.deviceID)
        #expect(try served.admin(["device", "revoke", "pia", deviceID]).status == 0)
        let revoked = try CLI.run(bound + ["--profile", profile])
        #expect(revoked.status == 10 && revoked.stderr.contains("access_denied"), "\(revoked.stderr)")
    }

    @Test func aNewDeviceJoinsByTheFallbackOrARegistrationLink() throws {
        let port = try NotificationCLITests().freePort()
        // The password fallback binds only where the operator turned it on.
        let served = try Served(extra: ["--idv=false", "--port", String(port), "--issuer", "http://127.0.0.1:\(port)", "--password-registration"])
        defer { served.stop() }
        _ = try activatedProfile(served, "quinn")
        let client = try createClient(served, ["--name", "App", "--redirect-uri", "com.example.app:/callback"])
        // signin without --bound on an unbound device: the password registers it, then the bound sign-in runs.
        let laptop = CLI.temporaryDirectory() + "/laptop"
        let signIn = try CLI.run(["signin", "--client-id", client.clientID, "--redirect-uri", "com.example.app:/callback", "--yes",
                                  "--user", "quinn", "--name", "laptop", "--password-stdin", "--profile", laptop, "--server", served.server],
                                 stdin: NotificationCLITests.password + "\n")
        #expect(signIn.status == 0 && signIn.stdout.contains("code: ac_"), "\(signIn.stdout) \(signIn.stderr)")
        let bound = try CLI.run(["signin", "--bound", "--client-id", client.clientID, "--redirect-uri", "com.example.app:/callback", "--yes",
                                 "--profile", laptop])
        #expect(bound.status == 0, "\(bound.stderr)")

        // A registration link: issued by the relying party, used once by the new device.
        let link = try served.admin(["device", "link", "--user", "quinn", "--json"])
        #expect(link.status == 0, "\(link.stderr)")
        let code = try WireJSON.decoder().decode(RegistrationCodeInfo.self, from: Data(link.stdout.utf8)).registrationCode
        let tablet = CLI.temporaryDirectory() + "/tablet"
        let registered = try CLI.run(["device", "register", "--user", "quinn", "--code", code, "--name", "tablet", "--profile", tablet,
                                      "--server", served.server])
        #expect(registered.status == 0 && registered.stdout.contains("registered"), "\(registered.stdout) \(registered.stderr)")
        let reused = try CLI.run(["device", "register", "--user", "quinn", "--code", code, "--profile", CLI.temporaryDirectory() + "/x",
                                  "--server", served.server])
        #expect(reused.status == 1 && reused.stderr.contains("invalid_registration_code"), "\(reused.stderr)")
        let devices = try served.admin(["device", "list", "quinn", "--json"])
        let listed = try WireJSON.decoder().decode(DeviceList.self, from: Data(devices.stdout.utf8)).devices
        #expect(listed.compactMap(\.boundBy) == ["activation", "password", "registration_code"], "\(listed)")
    }
}
