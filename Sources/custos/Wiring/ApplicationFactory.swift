import CustosCore
import CustosCrypto
import CustosServer
import CustosStore

/// Wires the live parts (store, OpenSSL/Argon2 crypto, clock) into the application's services.
enum ApplicationFactory {
    static func dependencies(_ configuration: ServerConfiguration, store: SQLStore) throws -> ApplicationDependencies {
        let random = SecureRandom()
        let digester = SHA256SecretDigester()
        let clock = SystemClock()
        let hasher = Argon2id(cost: .init(iterations: configuration.argon2Iterations, memoryKiB: configuration.argon2MemoryKiB,
                                          parallelism: 1), random: random)
        let identity = try IdentityService(store: store, hasher: hasher, keys: P256DeviceKeyVerifier(), digester: digester,
                                           random: random, clock: clock, policy: configuration.identity)
        let apiKeys = APIKeyService(store: store, digester: digester, random: random, clock: clock)
        return ApplicationDependencies(database: store, identity: identity, apiKeys: apiKeys, clock: clock)
    }

    /// API keys straight in the database (bootstrap: the first admin key needs no server).
    static func apiKeyService(store: SQLStore) -> APIKeyService {
        APIKeyService(store: store, digester: SHA256SecretDigester(), random: SecureRandom(), clock: SystemClock())
    }
}
