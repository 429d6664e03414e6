import CustosAPI
@testable import CustosSDK
import Foundation
import Testing

/// The seed's 240 path, every way in: declining the start confirmation, leaving it
/// unanswered, cancelling the awaiting task, a camera that fails. Each cancels the
/// transaction on the server, emits the workflow's result event once with
/// `error == .userCancelled`, and returns the server's cancel answer.
///
/// The limit catches a hang, not slowness: it counts the time a test waits for a thread while
/// every suite runs in parallel on two cores (minutes under `make test`; well under a second alone).
@Suite(.timeLimit(.minutes(10))) struct SelfieCancellationTests {
    static let cancelLine = "POST \(ContractFixtures.transactionPath)/cancel HTTP/1.1"
    static let confirmLine = "POST \(ContractFixtures.transactionPath)/confirm HTTP/1.1"
    static let framesLine = "POST \(ContractFixtures.transactionPath)/frames HTTP/1.1"

    /// Checks the one result event of a workflow that ended on the 240 path.
    static func expectCancelled(_ client: CustosClient, _ results: EventLog<IDVResultEvent>, response statusCode: StatusCode? = .userCancelledSelfie) async throws {
        let event = try await results.first()
        #expect(event.error == .userCancelled)
        #expect(event.error?.longErrorCode == 240)
        #expect(event.response?.statusCode == statusCode)
        #expect(event.userID == ContractFixtures.userID)
        await EventLog<IDVResultEvent>.settled(client)
        #expect(results.all.count == 1, "the result event fires once")
    }

    @Test func decliningTheStartCancelsWith240() async throws {
        let stub = try ContractFixtures.selfieServer()
        defer { stub.stop() }
        let client = try ContractFixtures.client(stub.url)
        let asked = EventLog(client, .onGetIDVSelfieProcessStartConfirmation)
        let token = client.events.on(.onGetIDVSelfieProcessStartConfirmation) { request in
            client.setIDVSelfieProcessStartConfirmation(false, workflow: request.workflow)
        }
        defer { token.remove() }
        let results = EventLog(client, .onIDVServerBiometricAuthenticationResult)

        let result = try await client.initiateIDVServerBiometricAuthentication(reason: "Approve payment")

        #expect(result.statusCode == 240)
        try await Self.expectCancelled(client, results)
        #expect(stub.requestLines.contains(Self.cancelLine) && !stub.requestLines.contains(Self.confirmLine))
        #expect(asked.all.isEmpty, "the answering handler sits on top of the log")
        withExtendedLifetime(asked) {}
    }

    @Test func anUnansweredStartTimesOutAndCancelsWith240() async throws {
        let stub = try ContractFixtures.selfieServer()
        defer { stub.stop() }
        let client = try ContractFixtures.client(stub.url, startConfirmationTimeout: 0.3)
        let asked = EventLog(client, .onGetIDVSelfieProcessStartConfirmation)   // hears the question, never answers
        let results = EventLog(client, .onIDVServerBiometricAuthenticationResult)

        let result = try await client.initiateIDVServerBiometricAuthentication(reason: "Approve payment")

        #expect(result.statusCode == 240)
        try await Self.expectCancelled(client, results)
        #expect(try await asked.first().idvAuditTransactionID == ContractFixtures.transactionID)
        #expect(results.all.first?.error?.message.contains("not answered within 0.3 s") == true)
        #expect(stub.requestLines.contains(Self.cancelLine) && !stub.requestLines.contains(Self.confirmLine))
        // A late answer finds nothing waiting.
        client.setIDVSelfieProcessStartConfirmation(true, workflow: 8)
    }

    @Test func cancellingTheTaskWhileItAwaitsTheStartCancelsWith240() async throws {
        let stub = try ContractFixtures.selfieServer()
        defer { stub.stop() }
        let client = try ContractFixtures.client(stub.url)
        let asked = EventLog(client, .onGetIDVSelfieProcessStartConfirmation)
        let results = EventLog(client, .onIDVServerBiometricAuthenticationResult)

        let workflow = Task { try await client.initiateIDVServerBiometricAuthentication(reason: "Approve payment") }
        _ = try await asked.first()
        workflow.cancel()
        let result = try await workflow.value

        #expect(result.statusCode == 240)
        try await Self.expectCancelled(client, results)
        #expect(stub.requestLines.contains(Self.cancelLine) && !stub.requestLines.contains(Self.confirmLine))
    }

    @Test func cancellingTheTaskDuringTheCaptureCancelsWith240() async throws {
        let stub = try ContractFixtures.selfieServer(cancel: .init(200, ContractFixtures.result(240, attemptsLeft: 4)))
        defer { stub.stop() }
        let (capturing, started) = AsyncStream<Void>.makeStream()
        let client = try ContractFixtures.client(stub.url, frameSource: EndlessCamera { started.yield() })
        let results = EventLog(client, .onIDVServerBiometricAuthenticationResult)

        let workflow = Task { try await client.initiateIDVServerBiometricAuthentication(reason: "Approve payment") }
        var iterator = capturing.makeAsyncIterator()
        _ = await iterator.next()
        workflow.cancel()
        let result = try await workflow.value

        #expect(result.statusCode == 240 && result.attemptsLeft == 4)
        try await Self.expectCancelled(client, results)
        #expect(stub.requestLines.contains(Self.confirmLine) && stub.requestLines.contains(Self.cancelLine))
        #expect(!stub.requestLines.contains(Self.framesLine))
    }

    @Test func aCameraThatThrowsCancelsWith240() async throws {
        let stub = try ContractFixtures.selfieServer(cancel: .init(200, ContractFixtures.result(240, attemptsLeft: 4)))
        defer { stub.stop() }
        let client = try ContractFixtures.client(stub.url, frameSource: BrokenCamera())
        let results = EventLog(client, .onIDVServerBiometricAuthenticationResult)

        let result = try await client.initiateIDVServerBiometricAuthentication(reason: "Approve payment")

        #expect(result.statusCode == 240 && result.attemptsLeft == 4)
        try await Self.expectCancelled(client, results)
        #expect(results.all.first?.error?.message.contains("Closed") == true)
        #expect(stub.requestLines == ["POST /v1/idv/transactions HTTP/1.1", Self.confirmLine, Self.cancelLine])
    }

    @Test func aCancelTheServerNeverConfirmedThrows240() async throws {
        let stub = try ContractFixtures.selfieServer(cancel: .init(503, ContractFixtures.envelope("database_unavailable", "Try again.")))
        defer { stub.stop() }
        let client = try ContractFixtures.client(stub.url, frameSource: BrokenCamera())
        let results = EventLog(client, .onIDVServerBiometricAuthenticationResult)

        let thrown = await ContractFixtures.thrownError { try await client.initiateIDVServerBiometricAuthentication(reason: "Approve payment") }

        #expect(thrown == .userCancelled && thrown?.longErrorCode == 240)
        try await Self.expectCancelled(client, results, response: nil)
    }

    @Test func aCancelThatUsesTheLastAttemptLogsTheUserOff() async throws {
        let stub = try ContractFixtures.selfieServer(cancel: .init(200, ContractFixtures.result(153, attemptsLeft: 0)))
        defer { stub.stop() }
        let client = try ContractFixtures.client(stub.url, frameSource: BrokenCamera())
        let results = EventLog(client, .onIDVServerBiometricAuthenticationResult)
        let loggedOff = EventLog(client, .onUserLoggedOff)

        let result = try await client.initiateIDVServerBiometricAuthentication(reason: "Approve payment")

        #expect(result.statusCode == 153)
        try await Self.expectCancelled(client, results, response: 153)
        #expect(try await loggedOff.first().statusCode == 153)
        #expect(client.session.sessionToken == nil)
    }

    @Test func aLockingResultLogsTheUserOff() async throws {
        let stub = try ContractFixtures.selfieServer(frames: .init(200, ContractFixtures.result(153, display: "NOT_MATCHED", attemptsLeft: 0)))
        defer { stub.stop() }
        let client = try ContractFixtures.client(stub.url)
        let results = EventLog(client, .onIDVServerBiometricAuthenticationResult)
        let loggedOff = EventLog(client, .onUserLoggedOff)

        let result = try await client.initiateIDVServerBiometricAuthentication(reason: "Approve payment")

        #expect(result.statusCode == 153)
        let event = try await results.first()
        #expect(event.error == nil && event.response?.statusCode == 153)
        let logoff = try await loggedOff.first()
        #expect(logoff.statusCode == 153 && logoff.userID == ContractFixtures.userID)
        #expect(client.session.sessionToken == nil)
    }

    @Test func aConfirmedCaptureIsJudgedWithoutError() async throws {
        let stub = try ContractFixtures.selfieServer()
        defer { stub.stop() }
        let client = try ContractFixtures.client(stub.url)
        let token = client.events.on(.onGetIDVSelfieProcessStartConfirmation) { request in
            client.setIDVSelfieProcessStartConfirmation(true, workflow: request.workflow)
        }
        defer { token.remove() }
        let results = EventLog(client, .onIDVServerBiometricAuthenticationResult)

        let result = try await client.initiateIDVServerBiometricAuthentication(reason: "Approve payment")

        #expect(result.biometricResult?.displayText == "MATCHED")
        let event = try await results.first()
        #expect(event.error == nil && event.response == result)
        #expect(stub.requestLines.contains(Self.framesLine) && !stub.requestLines.contains(Self.cancelLine))
        #expect(client.session.sessionToken == ContractFixtures.sessionToken)
    }

    @Test func noCameraIsAConfigurationError() async throws {
        let stub = try ContractFixtures.selfieServer()
        defer { stub.stop() }
        let client = try ContractFixtures.client(stub.url, frameSource: nil)
        let results = EventLog(client, .onIDVServerBiometricAuthenticationResult)
        let thrown = await ContractFixtures.thrownError { try await client.initiateIDVServerBiometricAuthentication(reason: "Approve payment") }
        #expect(thrown?.longErrorCode == 903)
        let event = try await results.first()
        #expect(event.error == thrown && event.response == nil)
        #expect(stub.requestLines.isEmpty)
    }
}
