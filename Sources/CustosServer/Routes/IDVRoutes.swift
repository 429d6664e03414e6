import CustosAPI
import CustosCore
import CustosHTTP
import Foundation

/// The app's workflows (session): template status, opt-out, and the transaction steps
/// initiate → confirm (challenge, or the document upload) or cancel → frames or document
/// (result); and the relying party's (API key): enrolment grants, verdicts, document images.
enum IDVRoutes {
    static func register(on routes: inout EndpointRouter, _ groups: AccessGroups, identity: IdentityService, idv: IDVService?,
                         approvals: DeviceApprovalService? = nil) {
        // A server run without biometrics (--idv=false) answers as a switched-off feature does:
        // the client's answer, logged as a request like any other, not an error of the server's.
        @Sendable func service() throws -> IDVService {
            guard let idv else {
                throw HTTPError(status: 503, code: "idv_unavailable", message: "Server biometrics are not enabled on this server.")
            }
            return idv
        }
        routes.on(Endpoints.templateStatus, groups.session) { context, _ in
            IDVWireMapping.templateStatus(try service().templateStatus(userID: context.caller.userID))
        }
        routes.on(Endpoints.optOut, groups.session) { context, _ in
            try identity.requireTrustedDevice(context.caller)
            let userID = context.caller.userID
            let deleted = try service().optOut(userID: userID, sessionID: context.caller.id)
            return IDVWireMapping.optOut(deleted: deleted, userID: userID, attemptsLeft: try identity.attemptsLeft(userID: userID, factor: .biometric))
        }
        routes.on(Endpoints.grantEnrollment, groups.rp) { context, _ in
            let user = try identity.user(id: context.parameter("id"), managedBy: context.caller)
            return EnrollmentGrantResponse(userID: user.id, expiresAt: try service().grantEnrollment(userID: user.id, actor: context.caller.id))
        }
        routes.on(Endpoints.initiateIDV, groups.session) { context, body in
            guard let workflow = IDVWorkflow(body.workflow), workflow != .notificationStepUp else {
                throw IDVError.invalidInput(field: "workflow", reason: "must be 6 (KYC), 7 (additional document scan), "
                                            + "8 (server biometric authentication) or 10 (opt-in); "
                                            + "workflow 9 starts from a notification action")
            }
            let idv = try service()
            // Enrolling a face (KYC, opt-in) is for a device bound by more than the password:
            // else a phished password would enrol the phisher's face as the user's.
            // A scan of a document (workflow 7) spends the user's biometric attempts: not for it either.
            // Enrolling (6, 10) changes the template: not from a device on probation.
            if workflow.enrolls {
                try identity.requireTrustedDevice(context.caller)
            } else if workflow != .serverBiometricAuthentication {
                try identity.requireConfirmedDevice(context.caller)
            }
            let transaction = try idv.initiate(userID: context.caller.userID, workflow: workflow, reason: body.reason,
                                               consent: body.consent.map { BiometricConsent(accepted: $0.accepted, version: $0.version) },
                                               relyingPartyNonce: body.rpNonce, sessionID: context.caller.id,
                                               deviceID: context.caller.deviceID)
            return IDVWireMapping.transaction(transaction, detail: idv.policy.resultDetailToApp)
        }
        routes.on(Endpoints.confirmIDV, groups.session) { context, _ in
            switch try service().confirm(userID: context.caller.userID, transactionID: try context.parameter("id")) {
            case .selfie(let challenge): .selfie(IDVWireMapping.challenge(challenge))
            case .document(let capture): .document(IDVWireMapping.documentCapture(capture))
            }
        }
        routes.on(Endpoints.cancelIDV, groups.session) { context, _ in
            let idv = try service()
            let (transaction, result) = try idv.cancel(userID: context.caller.userID, transactionID: try context.parameter("id"))
            return IDVWireMapping.result(of: transaction, result, detail: idv.policy.resultDetailToApp)
        }
        routes.on(Endpoints.submitFrames, groups.biometricUpload) { context, body in
            let frames = body.frames.map { CapturedFrame(capturedAtMilliseconds: $0.capturedAtMs, jpeg: $0.image) }
            let idv = try service()
            let before = try identity.devices(userID: context.caller.userID).first { $0.id == context.caller.deviceID }
            let (transaction, result) = try idv.submit(userID: context.caller.userID, transactionID: try context.parameter("id"),
                                                       nonce: body.nonce, frames: frames, document: body.documentImage,
                                                       deviceID: context.caller.deviceID, sessionID: context.caller.id)
            // A match that confirmed a device the password alone bound: its probation starts, and
            // the user's other devices are told (best effort: the verdict stands either way).
            if before?.boundBy == .password, result.decision == .matched,
               let confirmed = try? identity.devices(userID: context.caller.userID).first(where: { $0.id == context.caller.deviceID }),
               confirmed.boundBy == .faceMatch {
                try? approvals?.announce(confirmed)
            }
            return IDVWireMapping.result(of: transaction, result, detail: idv.policy.resultDetailToApp)
        }
        routes.on(Endpoints.submitDocument, groups.biometricUpload) { context, body in
            let idv = try service()
            let (transaction, result) = try idv.submitDocument(userID: context.caller.userID, transactionID: try context.parameter("id"),
                                                               front: body.frontImage, back: body.backImage,
                                                               deviceID: context.caller.deviceID)
            return IDVWireMapping.result(of: transaction, result, detail: idv.policy.resultDetailToApp)
        }
        routes.on(Endpoints.verdict, groups.rp) { context, _ in
            let idv = try service()
            let transaction = try idv.transaction(id: context.parameter("id"), readBy: context.caller)
            return IDVWireMapping.verdict(transaction, documents: try idv.documentSides(of: transaction))
        }
        routes.respond(Endpoints.documentImage, groups.rp) { context, _ in
            guard let side = DocumentSide(rawValue: try context.parameter("side")) else { throw IDVError.documentNotFound }
            let image = try service().document(transactionID: try context.parameter("id"), side: side, viewer: context.caller)
            return IDVWireMapping.documentImage(image)
        }
    }
}

