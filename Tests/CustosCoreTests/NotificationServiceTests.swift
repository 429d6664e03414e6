import CustosAPI
@testable import CustosCore
import CustosFakes
import Foundation
import Testing

/// `NotificationService` on the fakes: each level's proof, what never falls back, expiry by the
/// manual clock, and the outbox row written with the state it reports.
@Suite struct NotificationServiceTests {
    /// Every callback is acceptable except those on `refused.example`.
    struct Callbacks: CallbackURLValidator {
        func validate(_ url: String) throws {
            if url.contains("refused.example") { throw StepUpError.invalidCallback("points at a private address") }
        }
    }

    let harness: ServiceHarness
    let service: NotificationService

    init(policy adjust: (inout NotificationPolicy) -> Void = { _ in }) throws {
        harness = try ServiceHarness()
        var policy = NotificationPolicy()
        adjust(&policy)
        service = NotificationService(store: harness.store, identity: harness.identity, idv: harness.idv, keys: FakeDeviceKeys(),
                                      digester: FakeDigester(), random: SeededRandom(), clock: harness.clock, signer: nil,
                                      audit: harness.audit, callbacks: Callbacks(), policy: policy)
    }

    func send(_ level: AuthLevel, lifetime: TimeInterval? = nil, callback: String? = "https://rp.example/hook") throws -> StepUpNotification {
        try service.create(NotificationDraft(
            userID: "alice", subject: "Payment", message: "Pay 12.00 EUR to ACME?",
            actions: [NotificationAction(label: "Approve", action: "approve", authLevel: level), NotificationAction(label: "Deny", action: "deny", authLevel: 0)],
            details: TransactionDetails(type: "payment", amount: "12.00", currency: "EUR", payee: "ACME"), lifetime: lifetime,
            callbackURL: callback), apiKeyID: "key-1")
    }

    func answer(_ notification: StepUpNotification, device: Device, _ action: String = "approve", proof: AnswerProof = AnswerProof()) throws
        -> NotificationAnswer {
        try service.answer(userID: "alice", deviceID: device.id, notificationID: notification.id, action: action, proof: proof)
    }

    @Test func levelOneTakesThePasswordOnTheSharedAttempts() throws {
        let (device, _, _) = try harness.activeUser()
        let sent = try send(.password)
        let asked = try answer(sent, device: device)
        #expect(asked.status == .stepUpRequired && asked.stepUp?.challengeMode == .password && asked.attemptsLeft == 5)
        let wrong = try answer(sent, device: device, proof: AnswerProof(password: "not it at all"))
        #expect(wrong.status == .credentialsRejected && wrong.attemptsLeft == 4 && wrong.stepUp?.challengeMode == .password)
        #expect(try harness.identity.attemptsLeft(userID: "alice", factor: .credentials) == 4)
        let done = try answer(sent, device: device, proof: AnswerProof(password: ServiceHarness.password))
        #expect(done.status == .success && done.notification.achievedLevel == .password)
        #expect(try harness.identity.attemptsLeft(userID: "alice", factor: .credentials) == 5)
    }

    @Test func levelThreeAcceptsOnlyTheBoundKeysSignatureOverTheStoredContent() throws {
        let (device, _, _) = try harness.activeUser()
        let sent = try send(.deviceSignature)
        // A password is no proof for level 3.
        #expect(try answer(sent, device: device, proof: AnswerProof(password: ServiceHarness.password)).status == .stepUpRequired)
        var altered = sent
        altered.details?.amount = "1.00"
        let forged = Data(FakeDeviceKeys.sign(Array(altered.signingContent(action: "approve")), key: ServiceHarness.key)).base64URLEncodedString
        let refused = try answer(sent, device: device, proof: AnswerProof(signature: forged))
        #expect(refused.status == .credentialsRejected && refused.attemptsLeft == 4)
        let signature = Data(FakeDeviceKeys.sign(Array(sent.signingContent(action: "approve")), key: ServiceHarness.key)).base64URLEncodedString
        let done = try answer(sent, device: device, proof: AnswerProof(signature: signature))
        #expect(done.status == .success && done.notification.achievedLevel == .deviceSignature)
        // Answered once: the same signature again finds it closed.
        #expect(throws: StepUpError.closed("answered")) { try answer(sent, device: device, proof: AnswerProof(signature: signature)) }
        // A second notification with the very same subject, message and payment: the signature
        // covers the first's uuid, so replaying it is a failed proof, not an approval.
        let twin = try send(.deviceSignature)
        let replayed = try answer(twin, device: device, proof: AnswerProof(signature: signature))
        #expect(replayed.status == .credentialsRejected && replayed.attemptsLeft == 3)
        #expect(try service.result(id: twin.id).0.status == .pending)
    }

    @Test func levelFourStartsWorkflowNineAndNeedsItsOwnMatch() throws {
        try harness.enrolled()
        let device = try #require(try harness.store.devices(userID: "alice").first)
        let sent = try send(.serverBiometric)
        let other = try send(.serverBiometric)
        let asked = try answer(sent, device: device)
        let transactionID = try #require(asked.stepUp?.idvAuditTransactionID)
        #expect(asked.stepUp?.idvWorkflow == .stepUpBiometric)
        #expect(try harness.idv.transaction(id: transactionID).workflow == .notificationStepUp)
        // Unfinished, and never for another notification.
        #expect(throws: StepUpError.stepUpUnfinished) { try answer(sent, device: device, proof: AnswerProof(idvTransactionID: transactionID)) }
        #expect(throws: StepUpError.stepUpMismatch) { try answer(other, device: device, proof: AnswerProof(idvTransactionID: transactionID)) }

        // Someone else's face: NOT_MATCHED uses an attempt, the notification stays pending.
        let started = try harness.idv.confirm(userID: "alice", transactionID: transactionID)
        guard case .selfie(let challenge) = started else {
            Issue.record("expected a selfie challenge, got \(started)")
            return
        }
        _ = try harness.submit(challenge, person: "mallory")
        let failed = try answer(sent, device: device, proof: AnswerProof(idvTransactionID: transactionID))
        #expect(failed.status == .credentialsRejected && failed.attemptsLeft == 4)

        // A new selfie of alice answers it.
        let again = try answer(sent, device: device)
        let retry = try #require(again.stepUp?.idvAuditTransactionID)
        let restarted = try harness.idv.confirm(userID: "alice", transactionID: retry)
        guard case .selfie(let second) = restarted else {
            Issue.record("expected a selfie challenge, got \(restarted)")
            return
        }
        #expect(try harness.submit(second, person: "alice").result.decision == .matched)
        #expect(throws: StepUpError.stepUpMismatch) { try answer(sent, device: device, proof: AnswerProof(idvTransactionID: transactionID)) }
        let done = try answer(sent, device: device, proof: AnswerProof(idvTransactionID: retry))
        #expect(done.status == .success && done.notification.achievedLevel == .serverBiometric)
    }

    @Test func expiryByTheClockClosesItWithItsWebhook() throws {
        let (device, _, _) = try harness.activeUser()
        let sent = try send(.none, lifetime: 60)
        harness.clock.advance(by: 59)
        #expect(try service.notifications(userID: "alice", open: true).count == 1)
        harness.clock.advance(by: 1)
        #expect(try service.notifications(userID: "alice", open: true).isEmpty)
        #expect(throws: StepUpError.expired) { try answer(sent, device: device) }
        #expect(try service.expireOverdue() == 0)  // the answer closed it already
        let (result, delivery) = try service.result(id: sent.id)
        #expect(result.status == .expired && result.answeredAt == nil)
        let event = try WireJSON.decoder().decode(WebhookEvent.self, from: try #require(delivery).body)
        #expect(event.event == "notification.expired" && event.deliveryID == delivery?.id && event.result.notificationUUID == sent.id)

        // The sweep closes what nobody touched.
        _ = try send(.none, lifetime: 10)
        harness.clock.advance(by: 10)
        #expect(try service.expireOverdue() == 1)
    }

    @Test func creationRefusesWhatItCannotHonour() throws {
        try harness.activeUser()
        #expect(throws: StepUpError.invalidCallback("points at a private address")) { try send(.none, callback: "https://refused.example/hook") }
        #expect(throws: StepUpError.levelNotAllowed) { try send(.appDefined) }
        #expect(throws: StepUpError.invalid("actions[0].auth_level",
                                            "must be 0 (none), 1 (password), 3 (device signature) or 4 (server biometric)")) {
            try send(AuthLevel(rawValue: 9))
        }
        #expect(throws: StepUpError.invalid("expires_in", "must be 10 to 86400 seconds")) { try send(.none, lifetime: 5) }
        for _ in 0..<5 { _ = try send(.none) }
        #expect(throws: StepUpError.tooMany("for this user from this API key")) { try send(.none) }
        let allowed = try NotificationServiceTests { $0.allowsAppDefinedLevel = true }
        try allowed.harness.activeUser()
        #expect(try allowed.send(.appDefined).actions[0].authLevel == .appDefined)
    }
}
