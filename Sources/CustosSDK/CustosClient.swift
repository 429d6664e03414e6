import CustosAPI
import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The entry point of the Custos SDK.
///
/// ```swift
/// let client = try CustosClient(configuration: .init(serverURL: URL(string: "https://auth.example.com")!,
///                                                  keyStore: FileDeviceKeyStore(directory: keysDirectory)))
/// let result = try await client.activate(userID: "alice", activationCode: code, password: pw, deviceName: "Alice's phone")
/// ```
public final class CustosClient: Sendable {
    public struct Configuration: Sendable {
        /// The server's base URL, e.g. `http://127.0.0.1:8080`.
        public var serverURL: URL
        /// Per-request timeout.
        public var timeout: TimeInterval
        /// Where the device's signing keys live.
        public var keyStore: (any DeviceKeyStore)?
        /// Where events are delivered (main by default on Apple platforms).
        public var eventQueue: DispatchQueue
        /// The camera for selfie workflows (each call may pass another).
        public var frameSource: (any FrameSource)?
        /// How long a selfie workflow waits for the app's answer to
        /// `onGetIDVSelfieProcessStartConfirmation` (seconds). Unanswered, the workflow is
        /// cancelled on the server and ends with error 240, so a screen that was dismissed
        /// without answering leaves no transaction open and no caller waiting for ever.
        public var startConfirmationTimeout: TimeInterval
        /// Sends the requests (`URLSession.shared` unless the app supplies its own).
        public var exchange: any HTTPExchange
        /// The platform's local authentication (Face ID, a PIN) that unlocks the device key for
        /// a notification action of level 3 (and of level 1 with `levelOneByLocalAuthentication`)
        /// and for `authenticateBoundUser`; `false` means the user cancelled (error 131, the
        /// notification stays pending). Nil: the key signs without asking.
        public var localAuthentication: (@Sendable (LocalAuthenticationRequest) async -> Bool)?
        /// The OpenID Connect client this app signs in to (`authenticateBoundUser`, `exchangeToken`).
        public var clientID: String?
        /// Answers notification actions of level 1 with the device's local authentication (the
        /// seed's LDA) where the server accepts it (a bound device): `localAuthentication`
        /// prompts, then the device key signs the notification as shown. Cancelling the prompt is
        /// error 131 and the action stays open for a retry. The server records such an answer as
        /// what it proved (level 3, `swk`). Off, without a `localAuthentication` hook, or where
        /// the server asks for the password only: the password (challenge mode 3).
        public var levelOneByLocalAuthentication = false

        public init(serverURL: URL, timeout: TimeInterval = 30, keyStore: (any DeviceKeyStore)? = nil,
                    eventQueue: DispatchQueue = EventHub.defaultQueue, frameSource: (any FrameSource)? = nil,
                    startConfirmationTimeout: TimeInterval = 60, exchange: any HTTPExchange = URLSessionExchange()) {
            self.exchange = exchange
            self.serverURL = serverURL
            self.timeout = timeout
            self.keyStore = keyStore
            self.eventQueue = eventQueue
            self.frameSource = frameSource
            self.startConfirmationTimeout = startConfirmationTimeout
        }
    }

    public let configuration: Configuration
    /// Install handlers for the SDK's events here.
    public let events: EventHub
    let transport: HTTPTransport
    let state = Mutex(SessionState())
    let confirmations = StartConfirmations()
    let passwordPrompts = PromptWaits<String>()

    public init(configuration: Configuration) throws {
        guard let scheme = configuration.serverURL.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw CustosError.invalidConfiguration("serverURL must be an http or https URL")
        }
        self.configuration = configuration
        let observer = AnswerObserver()
        transport = HTTPTransport(baseURL: configuration.serverURL, timeout: configuration.timeout, exchange: configuration.exchange,
                                  observer: observer)
        events = EventHub(queue: configuration.eventQueue)
        observer.install { [weak self] status in self?.answered(status) }
    }

    /// `GET /healthz`: whether the server process is alive, and its version.
    public func health() async throws -> HealthStatus {
        try await transport.call(Endpoints.health)
    }

    /// `GET /readyz`: whether the server can serve (its database answers). A server that is
    /// up but whose database is not throws a `CustosError` with code `database_unavailable`.
    public func readiness() async throws -> ReadinessStatus {
        try await transport.call(Endpoints.readiness)
    }
}
