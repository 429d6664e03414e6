import CustosCore
import CustosCrypto
import CustosFace
import CustosServer
import CustosStore
import Foundation

/// Wires the live parts (store, OpenSSL/Argon2 crypto, face engine, clock) into the
/// application's services.
enum ApplicationFactory {
    static func dependencies(_ configuration: ServerConfiguration, store: SQLStore, masterKeys: MasterKeys) throws -> ApplicationDependencies {
        let random = SecureRandom()
        let digester = SHA256SecretDigester()
        let clock = SystemClock()
        let hasher = Argon2id(cost: .init(iterations: configuration.argon2Iterations, memoryKiB: configuration.argon2MemoryKiB,
                                          parallelism: 1), random: random)
        let audit = auditTrail(store: store, masterKeys: masterKeys)
        let identity = try IdentityService(store: store, hasher: hasher, keys: P256DeviceKeyVerifier(), digester: digester,
                                           random: random, clock: clock, policy: configuration.identity, audit: audit)
        let apiKeys = APIKeyService(store: store, digester: digester, random: random, clock: clock)
        let signer = SigningKeyRing(store: store, masterKeys: masterKeys, random: random)
        var idv: IDVService?
        if configuration.idvEnabled {
            let engine: FaceEngine
            do {
                engine = try FaceEngine(configuration: FaceEngineConfiguration(
                    models: FaceModelFiles.locate(), poolSize: configuration.faceWorkers ?? ProcessInfo.processInfo.activeProcessorCount,
                    useCNNDetector: true))
            } catch {
                throw UsageError("server biometrics need the face models (\(error.message)); run scripts/install-deps.sh, set CUSTOS_MODELS_DIR, or serve with --idv=false")
            }
            guard engine.has68PointLandmarks else {
                throw UsageError("liveness needs the 68-point landmark model (shape_predictor_68_face_landmarks.dat); serve with --idv=false to run without server biometrics")
            }
            idv = IDVService(store: store, identity: identity, faces: engine,
                             liveness: ChallengeLivenessDetector(policy: configuration.idv.liveness),
                             cipher: MasterKeyTemplateCipher(masterKeys: masterKeys), audit: audit,
                             digester: digester, random: random, clock: clock, policy: configuration.idv, signer: signer,
                             verdictSigning: VerdictSigning(issuer: configuration.resolvedIssuer, audience: configuration.idvAudience))
        }
        return ApplicationDependencies(database: store, identity: identity, apiKeys: apiKeys, clock: clock, idv: idv, signer: signer)
    }

    /// The audit trail, its chain keyed under the master key (events of the previous one, during
    /// a master key rotation, still verify).
    static func auditTrail(store: SQLStore, masterKeys: MasterKeys) -> AuditTrail {
        AuditTrail(store: store, digester: MasterKeyAuditDigester(masterKey: masterKeys.primary),
                   previousDigester: masterKeys.previous.map(MasterKeyAuditDigester.init(masterKey:)), clock: SystemClock())
    }

    /// API keys straight in the database (bootstrap: the first admin key needs no server).
    static func apiKeyService(store: SQLStore) -> APIKeyService {
        APIKeyService(store: store, digester: SHA256SecretDigester(), random: SecureRandom(), clock: SystemClock())
    }
}
