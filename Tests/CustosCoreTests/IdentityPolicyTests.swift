import CustosAPI
@testable import CustosCore
import Foundation
import Testing

@Suite struct IdentityPolicyTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func lockoutDoublesUpToTheCap() {
        var policy = IdentityPolicy()
        policy.lockoutBase = 300
        policy.lockoutCap = 3600
        #expect((0...5).map { policy.lockDuration(afterLocks: $0) } == [300, 600, 1200, 2400, 3600, 3600])
        #expect(policy.lockDuration(afterLocks: 10_000) == 3600)
    }

    @Test func passwordAtLogin() {
        var policy = IdentityPolicy()
        let device = Device(id: "d", userID: "u", name: "n", publicKeyJWK: "{}", keyThumbprint: "t", createdAt: now,
                            passwordVerifiedAt: now.addingTimeInterval(-3 * 86400))
        policy.passwordAtLogin = .always
        #expect(policy.passwordRequired(for: device, at: now))
        policy.passwordAtLogin = .never
        #expect(!policy.passwordRequired(for: device, at: now))
        #expect(policy.passwordRequired(for: nil, at: now), "an unknown device always needs the password")
        policy.passwordAtLogin = .everyDays(7)
        #expect(!policy.passwordRequired(for: device, at: now))
        policy.passwordAtLogin = .everyDays(2)
        #expect(policy.passwordRequired(for: device, at: now))
    }

    @Test func passwordExpiry() {
        var policy = IdentityPolicy()
        policy.passwordMaximumAge = 90 * 86400
        let fresh = User(id: "u", status: .active, createdAt: now, passwordChangedAt: now.addingTimeInterval(-89 * 86400))
        let stale = User(id: "u", status: .active, createdAt: now, passwordChangedAt: now.addingTimeInterval(-90 * 86400))
        #expect(!policy.passwordExpired(fresh, at: now))
        #expect(policy.passwordExpired(stale, at: now))
        policy.passwordMaximumAge = nil
        #expect(!policy.passwordExpired(stale, at: now))
    }

    @Test func passwordRules() {
        let policy = IdentityPolicy()
        #expect(policy.passwordProblem("short", userID: "alice") != nil)
        #expect(policy.passwordProblem(String(repeating: "x", count: 129), userID: "alice") != nil)
        #expect(policy.passwordProblem("Alice.Smith", userID: "alice.smith") == "it must not be the user id")
        #expect(policy.passwordProblem("a good password", userID: "alice") == nil)
        // Code points, not what a reader sees: seven letters and a combining accent are eight.
        #expect(policy.passwordProblem("passwor\u{301}", userID: "alice") == nil)
        #expect(policy.passwordProblem("passwo\u{301}", userID: "alice") != nil)
    }

    @Test func lockedUntil() {
        let user = User(id: "u", status: .active, createdAt: now, lockedUntil: now.addingTimeInterval(10))
        #expect(user.isLocked(at: now))
        #expect(!user.isLocked(at: now.addingTimeInterval(10)))
    }
}

@Suite struct IdentityInputTests {
    struct FixedRandom: RandomSource {
        func bytes(count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 * 37 + 11) } }
    }

    @Test func activationCodesAreGroupedCrockfordBase32() {
        let code = IdentityService.activationCodeText(FixedRandom())
        #expect(code.count == 14)
        #expect(code.split(separator: "-").map(\.count) == [4, 4, 4])
        #expect(code.allSatisfy { "0123456789ABCDEFGHJKMNPQRSTVWXYZ-".contains($0) })
    }

    @Test(arguments: ["alice", "a.b_c@d+e-f", String(repeating: "x", count: 128)])
    func acceptedUserIDs(id: String) throws {
        try InputRules.checkUserID(id)
    }

    @Test(arguments: ["", "has space", "slash/", "ünï", String(repeating: "x", count: 129), "quote\""])
    func refusedUserIDs(id: String) {
        #expect(throws: IdentityError.self) { try InputRules.checkUserID(id) }
    }

    @Test func namesAreTrimmedAndBounded() throws {
        #expect(try InputRules.checkName("  Alice's phone ", field: "n") == "Alice's phone")
        #expect(throws: IdentityError.self) { try InputRules.checkName("   ", field: "n") }
        #expect(throws: IdentityError.self) { try InputRules.checkName("bell\u{7}", field: "n") }
        #expect(throws: IdentityError.self) { try InputRules.checkName(String(repeating: "n", count: 101), field: "n") }
    }

    @Test func base64URLDecoding() {
        #expect(Data(base64URLEncoded: "AQID") == Data([1, 2, 3]))
        #expect(Data(base64URLEncoded: "AQI") == Data([1, 2]))
        #expect(Data(base64URLEncoded: "A") == nil)
        #expect(Data(base64URLEncoded: "AQ+D") == nil)
        #expect(Data(base64URLEncoded: "AQ==") == nil)
    }
}
