import CustosAPI
@testable import CustosSDK
import Foundation
import Testing

/// The seed's first tier, exact: every failure of every call that has an event reaches the
/// app twice with the same non-zero `longErrorCode` — thrown by the call and carried by the
/// event — and an answer saying 153 ends the session (`onUserLoggedOff`).
///
/// The limit catches a hang, not slowness: it counts the time a test waits for a thread while
/// every suite runs in parallel on two cores (minutes under `make test`; well under a second alone).
@Suite(.timeLimit(.minutes(10))) struct SDKErrorContractTests {
    /// A way the server fails to answer, and the code the app must see.
    struct Failure: Sendable {
        let name: String
        /// nil: nothing listens (connection refused).
        let answer: StubHTTPServer.Answer?
        let longErrorCode: Int
        let code: String

        static let all: [Failure] = [
            Failure(name: "unreachable server", answer: nil, longErrorCode: 901, code: "transport_failed"),
            Failure(name: "not JSON", answer: .init(200, Data("<html>proxy</html>".utf8)), longErrorCode: 902, code: "invalid_response"),
            Failure(name: "401 envelope", answer: .init(401, ContractFixtures.envelope("invalid_session", "Sign in again.")),
                    longErrorCode: 401, code: "invalid_session"),
            Failure(name: "404 envelope", answer: .init(404, ContractFixtures.envelope("not_found", "Not found.")),
                    longErrorCode: 404, code: "not_found"),
            Failure(name: "422 envelope", answer: .init(422, ContractFixtures.envelope("invalid_input", "Bad field.")),
                    longErrorCode: 422, code: "invalid_input"),
            Failure(name: "500 without a body", answer: .init(500, Data()), longErrorCode: 500, code: "http_500"),
            Failure(name: "503 envelope", answer: .init(503, ContractFixtures.envelope("database_unavailable", "Try again.")),
                    longErrorCode: 503, code: "database_unavailable"),
            Failure(name: "423 with status 153", answer: .init(423, ContractFixtures.envelope("user_locked", "Locked.", statusCode: 153)),
                    longErrorCode: 153, code: "user_locked"),
            Failure(name: "403 with status 110", answer: .init(403, ContractFixtures.envelope("password_expired", "Change it.", statusCode: 110)),
                    longErrorCode: 110, code: "password_expired"),
        ]
    }

    /// The SDK's calls that ask the server: each with its event, and the two the seeds give no
    /// event (opt-out, bound sign-in), which only throw.
    enum Call: String, CaseIterable, Sendable {
        case activate, login, changePassword, logout, checkIDVUserBiometricTemplateStatus, initiateIDVServerBiometricAuthentication
        case getNotifications, updateNotification, updateNotificationByUUID, initiateActivatedCustomerKYC, initiateIDVBiometricOptIn
        case initiateIDVAdditionalDocumentScan, optOutIDVBiometric, authenticateBoundUser

        /// The event the call emits on every path.
        var event: String? {
            switch self {
            case .activate, .login: "onUserLoggedIn"
            case .changePassword: "onPasswordChanged"
            case .logout: "onUserLoggedOff"
            case .checkIDVUserBiometricTemplateStatus: "onIDVCheckUserBiometricTemplateStatus"
            case .initiateIDVServerBiometricAuthentication: "onIDVServerBiometricAuthenticationResult"
            case .getNotifications: "onGetNotifications"
            case .updateNotification, .updateNotificationByUUID: "onUpdateNotification"
            case .initiateActivatedCustomerKYC: "onActivatedCustomerKYCResponse"
            case .initiateIDVBiometricOptIn: "onIDVBiometricOptInResult"
            case .initiateIDVAdditionalDocumentScan: "onIDVAdditionalDocumentScanResult"
            case .optOutIDVBiometric, .authenticateBoundUser: nil
            }
        }
    }

    struct Row: Sendable, CustomTestStringConvertible {
        let failure: Failure
        let call: Call
        var testDescription: String { "\(call.rawValue), \(failure.name)" }

        /// Every call against every failure, except a logout's body-less success answer: it
        /// reads no JSON, so a body that is not JSON is no failure for it.
        static let all: [Row] = Failure.all.flatMap { failure in
            Call.allCases.compactMap { call in
                call == .logout && failure.code == "invalid_response" ? nil : Row(failure: failure, call: call)
            }
        }
    }

    /// What the app saw: the thrown error and the error the call's event carried.
    struct Seen {
        let thrown: CustosError?
        /// nil for a call without an event.
        let evented: CustosError??
        /// The event carried no answer (a failure has none).
        let eventWithoutResponse: Bool
    }

    /// A notification as the app lists it.
    static let shown = NotificationInfo(
        notificationUUID: "n1", subject: "Payment", message: "Approve?", actions: [NotificationAction(label: "Approve", action: "approve", authLevel: 0)],
        authorizationDetails: nil, numberMatching: false, status: .pending, createdAt: Date(), expiresAt: Date().addingTimeInterval(300))

    /// Runs `call`, and reads its one event through a log that also records the delivery `order`.
    static func observed<Payload: Sendable>(_ client: CustosClient, _ event: CustosEvent<Payload>, order: DeliveryOrder,
                                            where matches: @escaping @Sendable (Payload) -> Bool = { _ in true },
                                            error: @escaping (Payload) -> CustosError?, hasResponse: @escaping (Payload) -> Bool,
                                            _ call: () async throws -> Any) async throws -> Seen {
        let log = EventLog(client, event, order: order)
        let thrown = await ContractFixtures.thrownError(call)
        let payload = try await log.first(where: matches)
        return Seen(thrown: thrown, evented: .some(error(payload)), eventWithoutResponse: !hasResponse(payload))
    }

    static func perform(_ call: Call, on client: CustosClient, order: DeliveryOrder) async throws -> Seen {
        let user = ContractFixtures.userID, password = "a good long password"
        func idv(_ event: CustosEvent<IDVResultEvent>, _ run: () async throws -> Any) async throws -> Seen {
            try await observed(client, event, order: order, error: \.error, hasResponse: { $0.response != nil }, run)
        }
        switch call {
        case .activate, .login:
            return try await observed(client, .onUserLoggedIn, order: order, error: \.error, hasResponse: { $0.response != nil }) {
                if call == .activate {
                    return try await client.activate(userID: user, activationCode: "CODE-0000", password: password, deviceName: "test phone")
                }
                return try await client.login(userID: user, deviceID: "d1", password: password)
            }
        case .changePassword:
            return try await observed(client, .onPasswordChanged, order: order, error: \.error, hasResponse: { $0.response != nil }) {
                try await client.changePassword(userID: user, oldPassword: password, newPassword: "another long password")
            }
        case .logout:
            return try await observed(client, .onUserLoggedOff, order: order, where: { $0.error != nil }, error: \.error,
                                      hasResponse: { $0.statusCode != nil }) { try await client.logout() }
        case .checkIDVUserBiometricTemplateStatus:
            return try await observed(client, .onIDVCheckUserBiometricTemplateStatus, order: order, error: \.error,
                                      hasResponse: { $0.response != nil }) { try await client.checkIDVUserBiometricTemplateStatus() }
        case .initiateIDVServerBiometricAuthentication:
            return try await idv(.onIDVServerBiometricAuthenticationResult) {
                try await client.initiateIDVServerBiometricAuthentication(reason: "Approve payment")
            }
        case .getNotifications:
            return try await observed(client, .onGetNotifications, order: order, error: \.error, hasResponse: { $0.response != nil }) {
                try await client.getNotifications()
            }
        case .updateNotification, .updateNotificationByUUID:
            return try await observed(client, .onUpdateNotification, order: order, error: \.error, hasResponse: { $0.response != nil }) {
                call == .updateNotification ? try await client.updateNotification(shown, action: "approve")
                                            : try await client.updateNotification(uuid: "n1", action: "approve")
            }
        case .initiateActivatedCustomerKYC:
            return try await idv(.onActivatedCustomerKYCResponse) {
                try await client.initiateActivatedCustomerKYC(documentImage: Data([0xFF, 0xD8, 0xFF, 0xD9]), consentVersion: "kyc-1")
            }
        case .initiateIDVBiometricOptIn:
            return try await idv(.onIDVBiometricOptInResult) { try await client.initiateIDVBiometricOptIn(consentVersion: "v1") }
        case .initiateIDVAdditionalDocumentScan:
            return try await idv(.onIDVAdditionalDocumentScanResult) {
                try await client.initiateIDVAdditionalDocumentScan(reason: "Second document", front: Data([0xFF, 0xD8, 0xFF, 0xD9]))
            }
        case .optOutIDVBiometric:
            return Seen(thrown: await ContractFixtures.thrownError { try await client.optOutIDVBiometric() }, evented: nil,
                        eventWithoutResponse: true)
        case .authenticateBoundUser:
            return Seen(thrown: await ContractFixtures.thrownError {
                try await client.authenticateBoundUser(BoundUserAuthenticationRequest(redirectURI: "https://app.example/cb", clientID: "app"))
            }, evented: nil, eventWithoutResponse: true)
        }
    }

    @Test(arguments: Row.all)
    func everyFailureIsThrownAndEmittedWithItsLongErrorCode(row: Row) async throws {
        let stub = try row.failure.answer.map { try StubHTTPServer(status: $0.status, body: $0.body) }
        defer { stub?.stop() }
        let client = try ContractFixtures.client(stub?.url ?? ContractFixtures.unreachable)
        // Login signs with the device's key: give it one, so the failure is the server's.
        _ = try client.configuration.keyStore?.createKey(for: client.configuration.serverURL.absoluteString + "|" + ContractFixtures.userID)
        let order = DeliveryOrder()
        let logoff = row.call == .logout ? EventLog(client, .onUserLoggedOff) : EventLog(client, .onUserLoggedOff, order: order)

        let seen = try await Self.perform(row.call, on: client, order: order)

        let thrown = try #require(seen.thrown, "the call must fail")
        #expect(thrown.longErrorCode == row.failure.longErrorCode)
        #expect(thrown.longErrorCode != 0)
        #expect(thrown.code == row.failure.code)
        if let evented = seen.evented {
            #expect(evented == thrown)
            #expect(evented?.longErrorCode == row.failure.longErrorCode)
            #expect(seen.eventWithoutResponse)
        }

        if row.failure.longErrorCode == StatusCode.attemptsExhausted.rawValue {
            let lockout = try await logoff.first { $0.statusCode == 153 }
            #expect(lockout.userID == ContractFixtures.userID && lockout.error == nil)
            // The seed's order: the call's own event (its alert), then the log-off.
            await EventLog<LogoffInfo>.settled(client)
            #expect(order.all == (row.call.event.map { [$0] } ?? []) + ["onUserLoggedOff"])
            #expect(client.session.sessionToken == nil)
            #expect(client.session.userID == ContractFixtures.userID)
        } else {
            await EventLog<LogoffInfo>.settled(client)
            #expect(logoff.all.allSatisfy { $0.error != nil }, "only a failed logout may say so: \(logoff.all)")
            #expect(client.session.sessionToken == ContractFixtures.sessionToken, "a failure other than 153 keeps the session")
        }
    }

    @Test func aLoginAnswered153EndsTheSession() async throws {
        let stub = try StubHTTPServer { _, path in
            path == "/v1/login/challenge"
                ? .init(200, ContractFixtures.json(LoginChallenge(nonce: "nonce", expiresAt: Date().addingTimeInterval(60), passwordRequired: true)))
                : .init(200, ContractFixtures.authentication(153))
        }
        defer { stub.stop() }
        let client = try ContractFixtures.client(stub.url)
        _ = try client.configuration.keyStore?.createKey(for: stub.url.absoluteString + "|" + ContractFixtures.userID)
        let loggedIn = EventLog(client, .onUserLoggedIn)
        let loggedOff = EventLog(client, .onUserLoggedOff)

        let result = try await client.login(userID: ContractFixtures.userID, deviceID: "d1", password: "a good long password")

        #expect(result.statusCode == 153)
        let login = try await loggedIn.first()
        #expect(login.error == nil && login.response?.statusCode == 153)
        let logoff = try await loggedOff.first()
        #expect(logoff.statusCode == 153 && logoff.error == nil && logoff.userID == ContractFixtures.userID)
        #expect(client.session.sessionToken == nil)
        #expect(client.session.deviceID == "d1", "the device stays bound: the user logs in again once unlocked")
    }

    @Test func anotherUsersLockoutLeavesTheSessionAlone() async throws {
        let stub = try StubHTTPServer { _, path in
            path == "/v1/login/challenge"
                ? .init(200, ContractFixtures.json(LoginChallenge(nonce: "nonce", expiresAt: Date().addingTimeInterval(60), passwordRequired: true)))
                : .init(200, ContractFixtures.authentication(153, userID: "bob"))
        }
        defer { stub.stop() }
        let client = try ContractFixtures.client(stub.url)
        _ = try client.configuration.keyStore?.createKey(for: stub.url.absoluteString + "|bob")
        let loggedOff = EventLog(client, .onUserLoggedOff)

        let result = try await client.login(userID: "bob", deviceID: "d2", password: "a good long password")

        #expect(result.statusCode == 153)
        let logoff = try await loggedOff.first()
        #expect(logoff.statusCode == 153 && logoff.userID == "bob")
        #expect(client.session.sessionToken == ContractFixtures.sessionToken && client.session.userID == ContractFixtures.userID)
    }

    @Test func aLogoutSays100AndForgetsTheSession() async throws {
        let stub = try StubHTTPServer(status: 204, body: Data())
        defer { stub.stop() }
        let client = try ContractFixtures.client(stub.url)
        let loggedOff = EventLog(client, .onUserLoggedOff)
        try await client.logout()
        let logoff = try await loggedOff.first()
        #expect(logoff.statusCode == 100 && logoff.error == nil && logoff.userID == ContractFixtures.userID)
        #expect(client.session.sessionToken == nil)
    }

    @Test(arguments: [StatusCode.success, .noTemplate])
    func aTemplateStatusAnswerIsEmittedWithoutError(statusCode: StatusCode) async throws {
        let stub = try StubHTTPServer(status: 200, body: ContractFixtures.templateStatus(statusCode))
        defer { stub.stop() }
        let client = try ContractFixtures.client(stub.url)
        let log = EventLog(client, .onIDVCheckUserBiometricTemplateStatus)
        let status = try await client.checkIDVUserBiometricTemplateStatus()
        let event = try await log.first()
        #expect(event.error == nil && event.response == status && event.response?.statusCode == statusCode)
        #expect(event.userID == ContractFixtures.userID)
        await EventLog<TemplateStatusEvent>.settled(client)
        #expect(log.all.count == 1)
    }

    @Test func aMissingKeyStoreIsAConfigurationError() async throws {
        let client = try CustosClient(configuration: .init(serverURL: ContractFixtures.unreachable,
                                                           eventQueue: DispatchQueue(label: "test.sdk.events")))
        let log = EventLog(client, .onUserLoggedIn)
        let thrown = await ContractFixtures.thrownError {
            try await client.login(userID: ContractFixtures.userID, deviceID: "d1", password: nil)
        }
        #expect(thrown?.longErrorCode == 903 && thrown?.code == "invalid_configuration")
        #expect(try await log.first().error == thrown)
    }

    @Test func aKeyStoreFailureIsAComponentFailure() async throws {
        let client = try ContractFixtures.client(ContractFixtures.unreachable, keyStore: FailingKeyStore())
        let log = EventLog(client, .onUserLoggedIn)
        let thrown = await ContractFixtures.thrownError {
            try await client.activate(userID: ContractFixtures.userID, activationCode: "CODE-0000", password: "a good long password",
                                      deviceName: "test phone")
        }
        #expect(thrown?.longErrorCode == 904 && thrown?.code == "component_failed")
        #expect(thrown?.message == "the key store is broken")
        #expect(try await log.first().error == thrown)
    }

    @Test func theCodesAreFixedAndNeverZero() {
        #expect(CustosError.userCancelled.longErrorCode == 240 && CustosError.userCancelled.code == "user_cancelled")
        #expect(CustosError.localAuthenticationCancelled.longErrorCode == 131)
        #expect(CustosError.localAuthenticationCancelled.code == "local_authentication_cancelled")
        #expect(CustosError.passwordPromptDismissed.longErrorCode == 908)
        #expect(CustosError.transportFailed.longErrorCode == 901)
        #expect(CustosError.invalidResponse("x").longErrorCode == 902)
        #expect(CustosError.invalidConfiguration("x").longErrorCode == 903)
        #expect(CustosError(BrokenCamera.Closed()).longErrorCode == 904)
        #expect(CustosError.server(status: 409, code: "conflict", message: "").longErrorCode == 409)
        #expect(CustosError.server(status: 423, code: "user_locked", message: "", contractStatus: 153).longErrorCode == 153)
        // A body that claims success cannot make an error read as one.
        #expect(CustosError.server(status: 400, code: "bad", message: "", contractStatus: 100).longErrorCode == 400)
        #expect(CustosError.server(status: 400, code: "bad", message: "", contractStatus: 0).longErrorCode == 400)
        #expect(CustosError.cancelled("closed") == .userCancelled)
    }
}
