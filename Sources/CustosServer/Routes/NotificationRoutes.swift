import CustosAPI
import CustosCore
import CustosHTTP
import Foundation

/// Step-up notifications: the relying party (API key) sends them and reads their signed
/// results; the user's app (session) lists and answers them with the step-up each action's
/// level demands.
enum NotificationRoutes {
    static func register(on routes: inout EndpointRouter, _ groups: AccessGroups, notifications service: NotificationService?,
                         webhookSigner: (any WebhookSigner)?) {
        @Sendable func notifications() throws -> NotificationService {
            guard let service else {
                throw HTTPError(status: 503, code: "notifications_unavailable", message: "Notifications are not enabled on this server.")
            }
            return service
        }
        routes.on(Endpoints.createNotification, groups.rp) { context, body in
            let notification = try notifications().create(NotificationDraft(
                userID: body.userID, subject: body.subject, message: body.message, actions: body.actions,
                details: body.authorizationDetails, lifetime: body.expiresIn.map(TimeInterval.init),
                numberMatching: body.numberMatching ?? false, callbackURL: body.callbackURL), apiKeyID: context.caller.id)
            return CreatedNotification(notificationUUID: notification.id, expiresAt: notification.expiresAt, number: notification.number)
        }
        routes.on(Endpoints.notificationResult, groups.rp) { context, _ in
            let (notification, delivery) = try notifications().result(id: try context.parameter("id"), readBy: context.caller)
            return try notifications().wireResult(notification, delivery: delivery)
        }
        routes.on(Endpoints.webhookSecret, groups.rp) { context, _ in
            guard let webhookSigner else { throw HTTPError(status: 404, code: "not_found", message: "This server sends no webhooks.") }
            return WebhookSecretInfo(keyID: context.caller.id, secret: webhookSigner.secret(apiKeyID: context.caller.id))
        }
        routes.on(Endpoints.notifications, groups.session) { context, _ in
            NotificationList(notifications: try notifications().notifications(userID: context.caller.userID, open: true).map(info))
        }
        routes.on(Endpoints.notificationHistory, groups.session) { context, _ in
            NotificationList(notifications: try notifications().notifications(userID: context.caller.userID, open: false).map(info))
        }
        routes.on(Endpoints.updateNotification, groups.stepUp) { context, body in
            let answer = try notifications().answer(
                session: context.caller, notificationID: try context.parameter("id"),
                action: body.action, proof: AnswerProof(number: body.number, password: body.password, signature: body.signature,
                                                        idvTransactionID: body.idvTransactionID,
                                                        assertion: try body.assertion.map {
                                                            try OIDCRoutes.assertion($0.credentialID, $0.authenticatorData, $0.clientDataJSON, $0.signature)
                                                        }))
            return UpdateNotificationResult(statusCode: answer.status, statusMessage: answer.message, notificationUUID: answer.notification.id,
                                            action: answer.action, attemptsLeft: answer.attemptsLeft, stepUp: answer.stepUp,
                                            notification: info(answer.notification), lockedUntil: answer.lockedUntil)
        }
    }

    /// The user's view: never the relying party's number, only the three choices.
    static func info(_ notification: StepUpNotification) -> NotificationInfo {
        NotificationInfo(notificationUUID: notification.id, subject: notification.subject, message: notification.message,
                         actions: notification.actions, authorizationDetails: notification.details,
                         numberMatching: notification.number != nil, status: notification.status, createdAt: notification.createdAt,
                         expiresAt: notification.expiresAt, chosenAction: notification.chosenAction,
                         achievedLevel: notification.achievedLevel, answeredAt: notification.answeredAt)
    }
}

