import CustosAPI
import Foundation

extension IdentityService {
    /// The standard claims the relying party stated about the user (all empty when none).
    public func claims(userID: String) throws -> UserClaims {
        _ = try requireUser(userID)
        return try store.userClaims(id: userID) ?? UserClaims()
    }

    /// Replaces the user's claims with `claims` once checked (`UserClaims.checked`), stamped
    /// with the time of the change; all empty clears them. Audited with the actor and the
    /// names present, never the values.
    public func setClaims(_ claims: UserClaims, userID: String, actor: String) throws -> UserClaims {
        var claims = try claims.checked()
        claims.updatedAt = claims.isEmpty ? nil : Int64(clock.now().timeIntervalSince1970)
        let stored = claims
        return try store.atomically {
            guard try store.setUserClaims(stored.isEmpty ? nil : stored, id: userID) else { throw IdentityError.userNotFound }
            try audit?.record(.userClaimsChanged, userID: userID,
                              details: [AuditActor.detail: actor, "claims": stored.statedNames.joined(separator: " ")])
            return stored
        }
    }
}
