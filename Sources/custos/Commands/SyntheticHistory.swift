import CustosAPI
import CustosCore
import CustosCrypto
import CustosCryptoServices
import CustosRuntime
import CustosStore
import Foundation
import Synchronization

/// A year of invented history, written through the store in large transactions, for
/// `custos bench fill`. Each user is what a year leaves behind (what the housekeeping sweeps
/// keep): the user and a bound device, the audit events of their sign-ins,
/// approvals and selfies, the approvals closed in the last 90 days with their delivered
/// webhooks (every tenth answered through CIBA), one OpenID grant with a live refresh token,
/// a live session for one user in twenty (those active in the last 20 minutes) and, for one
/// user in a hundred, five earlier selfie takes. Users arrive evenly over the year;
/// each user's audit events carry the time of their arrival, so the chain stays in time order.
/// The audit events of each batch of users are appended together, many rows per statement.
final class SyntheticHistory {
    struct Report {
        var users = 0
        var auditEvents = 0
        var notifications = 0
        var grants = 0
    }

    /// Users per transaction.
    static let batch = 1000
    static let year: TimeInterval = 365 * 86400
    static let kept: TimeInterval = 90 * 86400

    private let store: SQLStore
    private let audit: AuditTrail
    private let vault: TemplateVault
    /// The audit events of the users being added, written together at the end of each batch.
    private var plannedEvents: [(kind: AuditKind, userID: String, transactionID: String?, details: [String: String], at: Date)] = []
    private let random = SecureRandom()
    private let keys = P256DeviceKeyVerifier()
    private let auditPerUser: Int
    private let notificationsPerUser: Int
    private let rpKey: APIKey
    private let client: OIDCClient?
    private let passwordHash: String
    private let now = Date()

    init(store: SQLStore, masterKeys: MasterKeys, auditPerUser: Int, notificationsPerUser: Int) throws {
        self.store = store
        self.auditPerUser = auditPerUser
        self.notificationsPerUser = notificationsPerUser
        audit = ApplicationFactory.auditTrail(store: store, masterKeys: masterKeys)
        vault = TemplateVault(store: store, cipher: MasterKeyTemplateCipher(masterKeys: masterKeys), random: random)
        guard let key = try store.apiKeys().filter({ $0.scope == .rp && $0.revokedAt == nil }).max(by: { $0.createdAt < $1.createdAt }) else {
            throw CommandFailure("no relying-party API key in this database: create one first (custos admin apikey create --scope rp)")
        }
        rpKey = key
        client = try store.oidcClients().sorted { $0.createdAt < $1.createdAt }.first { $0.kind == .public }
        // One hash for everyone (its salt shared): the users never sign in, only their rows count.
        passwordHash = try Argon2id(cost: .testing, random: random).hash("synthetic user, never signs in")
    }

    /// Adds `count` users named `<prefix>-0000001` on, `progress` called every 10,000.
    func addUsers(_ count: Int, prefix: String, progress: (Int) -> Void) throws -> Report {
        var report = Report()
        var done = 0
        while done < count {
            let end = min(count, done + Self.batch)
            let deviceKeys = try Self.newDeviceKeys(end - done)
            try store.bulkLoad {
                for index in done..<end {
                    try addUser(index + 1, of: count, prefix: prefix, deviceKey: deviceKeys[index - done], into: &report)
                }
                try writePlannedEvents()
            }
            if end / 10_000 > done / 10_000 { progress(end) }
            done = end
        }
        return report
    }

    private func addUser(_ number: Int, of count: Int, prefix: String, deviceKey: DevicePublicKey, into report: inout Report) throws {
        let userID = String(format: "%@-%07d", prefix, number)
        let arrived = now.addingTimeInterval(-Self.year * Double(count - number + 1) / Double(count))
        try store.createUser(User(id: userID, status: .active, createdAt: arrived, passwordHash: passwordHash, passwordChangedAt: arrived,
                                  createdBy: rpKey.id))
        let device = Device(id: random.hexID(bytes: 16), userID: userID, name: "phone", publicKeyJWK: deviceKey.jwkJSON,
                            keyThumbprint: try keys.thumbprint(of: deviceKey), createdAt: arrived, lastUsedAt: now, passwordVerifiedAt: arrived)
        try store.addDevice(device)
        if number % 20 == 0 {
            // Signed in within the last 20 minutes: sessions end 30 minutes idle, so they are
            // the users active now, not everyone (the sweep takes a few each minute).
            let seen = now.addingTimeInterval(-Double.random(in: 0...1200))
            try store.createSession(Session(id: random.hexID(bytes: 16), tokenDigest: Data(random.bytes(count: 32)), userID: userID,
                                            deviceID: device.id, createdAt: seen.addingTimeInterval(-600), lastSeenAt: seen,
                                            expiresAt: seen.addingTimeInterval(11 * 3600)))
        }
        report.auditEvents += try recordHistory(userID: userID, deviceID: device.id, from: arrived)
        for index in 0..<notificationsPerUser {
            try addClosedNotification(userID: userID, viaCIBA: index == 0 && number % 10 == 0)
            report.notifications += 1
        }
        if let client {
            try addGrant(userID: userID, deviceID: device.id, client: client, at: arrived)
            report.grants += 1
        }
        if number % 100 == 0 { try addTakes(5, userID: userID) }
        report.users += 1
    }

    /// `count` new P-256 public keys (their private halves thrown away), made on every core.
    private static func newDeviceKeys(_ count: Int) throws -> [DevicePublicKey] {
        let made = Mutex([DevicePublicKey?](repeating: nil, count: count))
        let failed = Mutex<(any Error)?>(nil)
        DispatchQueue.concurrentPerform(iterations: count) { index in
            do {
                let key = try P256.PrivateKey.generate().publicKey
                let publicKey = DevicePublicKey(x: Base64URL.encode(key.x), y: Base64URL.encode(key.y))
                made.withLock { $0[index] = publicKey }
            } catch {
                failed.withLock { $0 = error }
            }
        }
        if let error = failed.withLock({ $0 }) { throw error }
        return made.withLock { $0.compactMap { $0 } }
    }

    /// The user's audit events, a minute apart from `start`: creation and activation, then
    /// sign-ins, approvals and selfie checks in turn (written by `writePlannedEvents`).
    private func recordHistory(userID: String, deviceID: String, from start: Date) throws -> Int {
        func plan(_ kind: AuditKind, _ minute: Int, transaction: String? = nil, _ details: [String: String]) {
            plannedEvents.append((kind, userID, transaction, details, start.addingTimeInterval(60 * Double(minute))))
        }
        plan(.userCreated, 0, ["actor": rpKey.id])
        plan(.activationCodeIssued, 1, ["actor": rpKey.id])
        for minute in 2..<auditPerUser {
            let transaction = "t" + random.hexID(bytes: 8)
            switch minute % 5 {
            case 0: plan(.oidcSignIn, minute, ["device_id": deviceID, "client_id": client?.id ?? "none"])
            case 1: plan(.notificationCreated, minute, ["actor": rpKey.id, "notification_id": random.hexID(bytes: 16)])
            case 2: plan(.notificationClosed, minute, ["result": "approve", "level": "1"])
            case 3: plan(.idvTransactionStarted, minute, transaction: transaction, ["workflow": "8"])
            default: plan(.idvVerdict, minute, transaction: transaction, ["workflow": "8", "result": "MATCHED"])
            }
        }
        return auditPerUser
    }

    /// Appends the planned events to the chain, each hashed as the trail hashes what it records.
    private func writePlannedEvents() throws {
        try store.appendAuditEvents(count: plannedEvents.count) { index, head in
            let planned = plannedEvents[index]
            var event = AuditEvent(sequence: (head?.sequence ?? 0) + 1, occurredAt: StoredTime.rounded(planned.at), kind: planned.kind.rawValue,
                                   userID: planned.userID, transactionID: planned.transactionID, details: planned.details,
                                   previousHash: head?.hash ?? AuditEvent.genesisHash, hash: Data())
            event.hash = audit.hash(of: event)
            return event
        }
        plannedEvents.removeAll(keepingCapacity: true)
    }

    /// A notification answered at level 1 some time in the last 90 days, its webhook delivered.
    private func addClosedNotification(userID: String, viaCIBA: Bool) throws {
        let created = now.addingTimeInterval(-Double.random(in: 3600...Self.kept))
        let answered = created.addingTimeInterval(25)
        let id = random.hexID(bytes: 16)
        let notification = StepUpNotification(
            id: id, userID: userID, apiKeyID: rpKey.id, subject: "Payment to ACME", message: "Pay 12.50 EUR to ACME Ltd?",
            actions: [NotificationAction(label: "Approve", action: "approve", authLevel: .password),
                      NotificationAction(label: "Deny", action: "deny", authLevel: .none)],
            details: TransactionDetails(type: "payment", amount: "12.50", currency: "EUR", payee: "ACME Ltd"), number: nil,
            callbackURL: "https://rp.example/custos/webhook", status: .answered, createdAt: created, expiresAt: created.addingTimeInterval(300),
            chosenAction: "approve", achievedLevel: .password, answeredAt: answered)
        try store.createNotification(notification)
        let body = Data(#"{"notification_uuid":"\#(id)","status":"answered","action":"approve","auth_level":1}"#.utf8)
        try store.enqueueWebhook(WebhookDelivery(id: random.hexID(bytes: 16), notificationID: id, apiKeyID: rpKey.id,
                                                 url: "https://rp.example/custos/webhook", body: body, state: .delivered, attempts: 1,
                                                 nextAttemptAt: answered, lastStatus: 200, createdAt: answered, deliveredAt: answered))
        if viaCIBA, let client {
            try store.createCIBARequest(CIBARequest(digest: random.hexID(bytes: 32), notificationID: id, clientID: client.id, scope: "openid",
                                                    interval: 5, lastPolledAt: answered, tokensIssued: true, createdAt: created))
        }
    }

    /// A bound-device sign-in's grant (its code redeemed) with a live refresh token.
    private func addGrant(userID: String, deviceID: String, client: OIDCClient, at time: Date) throws {
        let grant = OIDCGrant(id: random.hexID(bytes: 16), clientID: client.id, userID: userID, deviceID: deviceID,
                              scope: "openid offline_access", nonce: nil, authTime: time, level: .deviceSignature, encryptIDToken: false,
                              createdAt: time)
        try store.createGrant(grant, code: AuthorizationCode(digest: Data(random.bytes(count: 32)), grantID: grant.id,
                                                              redirectURI: client.redirectURIs.first ?? "", codeChallenge: nil,
                                                              expiresAt: time.addingTimeInterval(60), redeemedAt: time))
        try store.createRefreshToken(RefreshToken(digest: Data(random.bytes(count: 32)), grantID: grant.id,
                                                  expiresAt: now.addingTimeInterval(30 * 86400)))
    }

    /// `count` earlier selfie takes of five frames each, taken over the last 90 days: what the
    /// replay check opens and compares on each of the user's authentications (up to 200).
    func addTakes(_ count: Int, userID: String) throws {
        try store.atomically {
            for _ in 0..<count {
                let taken = now.addingTimeInterval(-Double.random(in: 60...(Self.kept - 86400)))
                let fingerprints = (0..<5).map { _ in FrameFingerprint(values: Self.unitVector()) }
                try store.saveFrameMemory(try vault.sealFrames(fingerprints, id: random.hexID(bytes: 16), userID: userID, now: taken,
                                                               expiresAt: taken.addingTimeInterval(Self.kept)))
            }
        }
    }

    private static func unitVector() -> [Float] {
        let values = (0..<FrameFingerprint.length).map { _ in Float.random(in: -1...1) }
        let norm = values.reduce(0) { $0 + $1 * $1 }.squareRoot()
        return values.map { $0 / norm }
    }

    func analyze() throws {
        try store.analyzeAfterBulkLoad()
    }

    func rowCounts() throws -> [(table: String, rows: Int64)] {
        try store.rowCounts()
    }
}
