import CustosCore
import CustosCrypto
import CustosServer

/// The application's services as built, with their concrete types (tests drive them directly).
public struct RuntimeServices: Sendable {
    public let identity: IdentityService
    public let apiKeys: APIKeyService
    /// Nil when server biometrics are off.
    public let idv: IDVService?
    public let signer: SigningKeyRing
    public let clock: any Clock

    /// What the HTTP application needs of them.
    public func dependencies(database: any DatabaseHealth, rateLimiter: RateLimiter? = nil) -> ApplicationDependencies {
        ApplicationDependencies(database: database, identity: identity, apiKeys: apiKeys, clock: clock, idv: idv, signer: signer,
                                rateLimiter: rateLimiter)
    }
}
