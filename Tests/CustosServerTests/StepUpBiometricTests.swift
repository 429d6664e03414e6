import CustosAPI
import CustosCore
import CustosFace
import CustosSDK
import CustosTestSupport
import Foundation
import Testing

/// Notification actions of level 4: the workflow 9 selfie, on real frames.
@Suite(needsFaces) struct StepUpBiometricTests {
    func camera(_ live: LiveServer, _ frames: [Data]) -> RecordedFrames {
        RecordedFrames(frames: frames, framesPerSecond: 12, clock: live.clock)
    }

    func send(_ rp: CustosAdminClient, _ userID: String) async throws -> CreatedNotification {
        try await rp.createNotification(CreateNotificationRequest(
            userID: userID, subject: "Wire 9,000 EUR", message: "Approve the wire transfer?",
            actions: [NotificationAction(label: "Approve", action: "approve", authLevel: 4),
                      NotificationAction(label: "Deny", action: "deny", authLevel: 0)],
            authorizationDetails: TransactionDetails(type: "payment", amount: "9000.00", currency: "EUR", payee: "Jane Roe")))
    }

    @Test(arguments: StoreKind.available)
    func aSelfieAnswersLevelFourAndNothingWeakerDoes(kind: StoreKind) async throws {
        let live = try LiveServer(store: LiveServer.store(kind), idv: IDVPolicies.only(.blink))
        defer { live.stop() }
        let (client, _) = try await live.enrolledUser()
        let userID = try #require(client.session.userID)
        let rp = try live.admin()

        // The seed's handler chaining: the app-wide handler confirms every selfie; the
        // notifications screen's handler runs first for workflow 9 and hands on to it.
        let global = client.events.on(.onGetIDVSelfieProcessStartConfirmation) { [client] request in
            client.setIDVSelfieProcessStartConfirmation(true, workflow: request.workflow)
        }
        let screen = Recorded<Int>()
        let screenToken = client.events.chain(.onGetIDVSelfieProcessStartConfirmation) { request, previous in
            screen.append(request.workflow.rawValue)
            previous(request)
        }

        let created = try await send(rp, userID)
        let shown = try #require(try await client.getNotifications().notifications.first)
        // A password or a signature does not answer level 4: the answer asks for the selfie again.
        let api = RawAPI(base: live.baseURL)
        let bearer = try #require(client.session.sessionToken)
        let weaker: UpdateNotificationResult = try await api.post("/v1/notifications/\(created.notificationUUID)/actions",
                                                                  UpdateNotificationRequest(action: "approve", password: IdentityFlowTests.password),
                                                                  bearer: bearer)
        #expect(weaker.statusCode == .stepUpRequired && weaker.stepUp?.idvWorkflow == 9)
        // Workflow 9 starts from a notification, never from the app's own initiate.
        let (direct, _) = try await api.postRaw("/v1/idv/transactions", IDVInitiateRequest(workflow: 9), bearer: bearer)
        #expect(direct == 422)

        let matched = try await client.updateNotification(shown, action: "approve",
                                                          frameSource: camera(live, try FaceFixture.frames("blink_selfie", 38...50)))
        #expect(matched.statusCode == 100 && matched.notification?.achievedLevel == 4, "\(matched)")
        #expect(screen.all == [9])
        let result = try await rp.notificationResult(created.notificationUUID)
        #expect(result.status == .answered && result.authLevel == 4 && result.amr == ["face", "user"])

        // A still photo: LIVENESS_FAILED uses an attempt and the notification stays pending.
        let second = try await send(rp, userID)
        let photo = try FaceFixture.frames("blink_selfie", 30...30)[0]
        let still = try PresentationAttacks.reencodedFrames(photo, count: 10)
        let failed = try await client.updateNotification(try #require(try await client.getNotifications().notifications.first),
                                                         action: "approve", frameSource: camera(live, still))
        #expect(failed.statusCode == 401 && failed.attemptsLeft == 4, "\(failed)")
        #expect(try await rp.notificationResult(second.notificationUUID).status == .pending)

        // Declining the selfie: error 240 in the event, the notification stays pending.
        screenToken.remove()
        global.remove()
        let decline = client.events.on(.onGetIDVSelfieProcessStartConfirmation) { [client] request in
            client.setIDVSelfieProcessStartConfirmation(false, workflow: request.workflow)
        }
        let event = SDKContractTests.FirstEvent(client, .onUpdateNotification)
        let declined = try await client.updateNotification(try #require(try await client.getNotifications().notifications.first),
                                                           action: "approve", frameSource: camera(live, still))
        #expect(declined.statusCode == 240)
        #expect(try await event.value.error?.longErrorCode == 240)
        #expect(try await rp.notificationResult(second.notificationUUID).status == .pending)
        decline.remove()
    }

    @Test func withoutATemplateLevelFourAnswers600AndNeverFallsBack() async throws {
        let live = try LiveServer(store: LiveServer.store(.sqlite), idv: IDVPolicies.only(.blink))
        defer { live.stop() }
        let (client, userID, _) = try await IdentityFlowTests.activatedUser(live)
        let created = try await send(try live.admin(), userID)
        let shown = try #require(try await client.getNotifications().notifications.first)
        let answer = try await client.updateNotification(shown, action: "approve", frameSource: camera(live, []))
        #expect(answer.statusCode == 600 && answer.stepUp == nil)
        #expect(try await live.admin().notificationResult(created.notificationUUID).status == .pending)
    }
}
