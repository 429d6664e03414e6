import CustosConfiguration
import CustosCore
import CustosCrypto
import CustosCryptoServices
import CustosDelivery
import CustosFace
import CustosStore
import Foundation

/// Wires the live parts (store, OpenSSL/Argon2 crypto, face engine, clock) into the
/// application's services, the same way for `custos serve` and for the tests' live server.
public enum ApplicationFactory {
    /// The services of `configuration` over `store`. The Argon2id cost comes from the
    /// configuration; `parts` replaces the clock, the face engine or the audit store.
    public static func services(_ configuration: ServerConfiguration, store: SQLStore, masterKeys: MasterKeys,
                                parts: RuntimeParts = RuntimeParts()) throws -> RuntimeServices {
        let random = SecureRandom()
        let digester = SHA256SecretDigester()
        let clock = parts.clock
        let hasher = Argon2id(cost: .init(iterations: configuration.argon2Iterations, memoryKiB: configuration.argon2MemoryKiB,
                                          parallelism: 1), random: random)
        let audit = auditTrail(store: parts.auditStore ?? store, masterKeys: masterKeys, clock: clock)
        let signer = SigningKeyRing(store: store, masterKeys: masterKeys, random: random)
        let callbacks = CallbackURLPolicy(webhookConfiguration(configuration))
        let signals = SecurityEventTransmitter(store: store, signer: signer, random: random, clock: clock, callbacks: callbacks,
                                               issuer: configuration.resolvedIssuer)
        let identity = try IdentityService(store: store, hasher: hasher, keys: P256DeviceKeyVerifier(), digester: digester,
                                           random: random, clock: clock, policy: configuration.identity, audit: audit, signals: signals)
        let apiKeys = APIKeyService(store: store, digester: digester, random: random, clock: clock, audit: audit)
        var idv: IDVService?
        if configuration.idvEnabled {
            idv = IDVService(store: store, identity: identity, faces: try parts.faces ?? faceEngine(configuration),
                             liveness: ChallengeLivenessDetector(policy: configuration.idv.liveness),
                             cipher: MasterKeyTemplateCipher(masterKeys: masterKeys), audit: audit,
                             digester: digester, random: random, clock: clock, policy: configuration.idv, signer: signer,
                             verdictSigning: VerdictSigning(issuer: configuration.resolvedIssuer, audience: configuration.idvAudience))
        }
        var notificationPolicy = configuration.notifications
        notificationPolicy.issuer = configuration.resolvedIssuer
        var oidcPolicy = configuration.oidc
        oidcPolicy.issuer = configuration.resolvedIssuer
        let oidc = OIDCService(store: store, identity: identity, keys: P256DeviceKeyVerifier(), clientKeys: P256ClientKeys(), digester: digester,
                               random: random, clock: clock, signer: signer, audit: audit, policy: oidcPolicy)
        let notifications = NotificationService(
            store: store, identity: identity, idv: idv, keys: P256DeviceKeyVerifier(), digester: digester, random: random, clock: clock,
            signer: signer, audit: audit, callbacks: callbacks, policy: notificationPolicy, outboxBell: signals.outboxBell,
            passkeys: PasskeyService(sharing: oidc))
        let ciba = CIBAService(store: store, notifications: notifications, apiKeys: apiKeys, digester: digester, random: random, clock: clock,
                               signer: signer, issuer: configuration.resolvedIssuer, interval: configuration.cibaInterval)
        return RuntimeServices(identity: identity, apiKeys: apiKeys, idv: idv, signer: signer, clock: clock, notifications: notifications,
                               webhookSigner: MasterKeyWebhookSigner(masterKey: masterKeys.primary), ciba: ciba, oidc: oidc,
                               audit: audit)
    }

    /// How webhooks are sent: plain http to a loopback receiver only in development.
    static func webhookConfiguration(_ configuration: ServerConfiguration) -> WebhookConfiguration {
        var webhooks = configuration.webhooks
        webhooks.allowsLoopbackHTTP = webhooks.allowsLoopbackHTTP || configuration.development
        return webhooks
    }

    /// The audit trail, its chain keyed under the master key (events of the previous one, during
    /// a master key rotation, still verify).
    public static func auditTrail(store: any AuditStore, masterKeys: MasterKeys, clock: any Clock = SystemClock()) -> AuditTrail {
        AuditTrail(store: store, digester: MasterKeyAuditDigester(masterKey: masterKeys.primary),
                   previousDigester: masterKeys.previous.map(MasterKeyAuditDigester.init(masterKey:)), clock: clock)
    }

    /// API keys straight in the database (bootstrap: the first admin key needs no server).
    public static func apiKeyService(store: SQLStore) -> APIKeyService {
        APIKeyService(store: store, digester: SHA256SecretDigester(), random: SecureRandom(), clock: SystemClock())
    }

    /// The face engine biometrics run on, one instance per configured worker; liveness needs
    /// its 68-point landmarks.
    private static func faceEngine(_ configuration: ServerConfiguration) throws -> FaceEngine {
        let engine: FaceEngine
        do {
            engine = try FaceEngine(configuration: FaceEngineConfiguration(
                models: FaceModelFiles.locate(), poolSize: configuration.faceWorkers ?? ProcessInfo.processInfo.activeProcessorCount,
                useCNNDetector: true, maximumQueueWait: TimeInterval(configuration.faceQueueSeconds)))
        } catch {
            throw RuntimeError(.configuration, "server biometrics need the face models (\(error.message)); run scripts/install-deps.sh, set CUSTOS_MODELS_DIR, or serve with --idv=false")
        }
        guard engine.has68PointLandmarks else {
            throw RuntimeError(.configuration, "liveness needs the 68-point landmark model (shape_predictor_68_face_landmarks.dat); serve with --idv=false to run without server biometrics")
        }
        return engine
    }
}
