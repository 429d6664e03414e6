import CustosAPI
import CustosCore
import CustosHTTP
import Foundation

/// The app's workflows (session bearer token): template status, opt-out, and the transaction
/// steps initiate → confirm (challenge, or the document upload) or cancel → frames or document
/// (result); and the relying party's reads (API key): verdicts and document images.
enum IDVRoutes {
    static func register(on router: inout Router, identity: IdentityService, apiKeys: APIKeyService, idv: IDVService?) {
        @Sendable func service() throws -> IDVService {
            guard let idv else { throw IDVUnavailable() }
            return idv
        }
        router.get("/v1/idv/template") { request in
            let session = try RequestAuthentication.session(request, identity)
            return try .wire(IDVWireMapping.templateStatus(try service().templateStatus(userID: session.userID)))
        }
        router.delete("/v1/idv/template") { request in
            let session = try RequestAuthentication.session(request, identity)
            let idv = try service()
            let deleted = try idv.optOut(userID: session.userID)
            return try .wire(IDVWireMapping.optOut(deleted: deleted, userID: session.userID,
                                                   attemptsLeft: try identity.attemptsLeft(userID: session.userID)))
        }
        router.post("/v1/users/{id}/enrollment-grant") { request in
            _ = try RequestAuthentication.apiKey(request, apiKeys, scope: .rp)
            let user = try identity.user(id: request.parameter("id"))
            return try .wire(EnrollmentGrantResponse(userID: user.id, expiresAt: try service().grantEnrollment(userID: user.id)), status: 201)
        }
        router.post("/v1/idv/transactions") { request in
            let session = try RequestAuthentication.session(request, identity)
            let body = try request.wire(IDVInitiateRequest.self)
            guard let workflow = IDVWorkflow(rawValue: body.workflow) else {
                throw IDVError.invalidInput(field: "workflow", reason: "must be 6 (KYC), 7 (additional document scan), "
                                            + "8 (server biometric authentication) or 10 (opt-in)")
            }
            let idv = try service()
            let transaction = try idv.initiate(userID: session.userID, workflow: workflow, reason: body.reason,
                                               consent: body.consent.map { BiometricConsent(accepted: $0.accepted, version: $0.version) },
                                               relyingPartyNonce: body.rpNonce)
            return try .wire(IDVWireMapping.transaction(transaction, detail: idv.policy.resultDetailToApp), status: 201)
        }
        router.post("/v1/idv/transactions/{id}/confirm") { request in
            let session = try RequestAuthentication.session(request, identity)
            switch try service().confirm(userID: session.userID, transactionID: try request.parameter("id")) {
            case .selfie(let challenge): return try .wire(IDVWireMapping.challenge(challenge))
            case .document(let capture): return try .wire(IDVWireMapping.documentCapture(capture))
            }
        }
        router.post("/v1/idv/transactions/{id}/cancel") { request in
            let session = try RequestAuthentication.session(request, identity)
            let idv = try service()
            let (transaction, result) = try idv.cancel(userID: session.userID, transactionID: try request.parameter("id"))
            return try .wire(IDVWireMapping.result(of: transaction, result, detail: idv.policy.resultDetailToApp))
        }
        router.post("/v1/idv/transactions/{id}/frames", uploads: true) { request in
            let session = try RequestAuthentication.session(request, identity)
            let body = try request.wire(IDVFramesRequest.self)
            let frames = body.frames.map { CapturedFrame(capturedAtMilliseconds: $0.capturedAtMs, jpeg: $0.image) }
            let idv = try service()
            let (transaction, result) = try idv.submit(userID: session.userID, transactionID: try request.parameter("id"),
                                                       nonce: body.nonce, frames: frames, document: body.documentImage)
            return try .wire(IDVWireMapping.result(of: transaction, result, detail: idv.policy.resultDetailToApp))
        }
        router.post("/v1/idv/transactions/{id}/document", uploads: true) { request in
            let session = try RequestAuthentication.session(request, identity)
            let body = try request.wire(IDVDocumentRequest.self)
            let idv = try service()
            let (transaction, result) = try idv.submitDocument(userID: session.userID, transactionID: try request.parameter("id"),
                                                               front: body.frontImage, back: body.backImage)
            return try .wire(IDVWireMapping.result(of: transaction, result, detail: idv.policy.resultDetailToApp))
        }
        router.get("/v1/idv/transactions/{id}/verdict") { request in
            _ = try RequestAuthentication.apiKey(request, apiKeys, scope: .rp)
            let idv = try service()
            let transaction = try idv.transaction(id: request.parameter("id"))
            return try .wire(IDVWireMapping.verdict(transaction, documents: try idv.documentSides(of: transaction)))
        }
        router.get("/v1/idv/transactions/{id}/documents/{side}") { request in
            let key = try RequestAuthentication.apiKey(request, apiKeys, scope: .rp)
            guard let side = DocumentSide(rawValue: try request.parameter("side")) else { throw IDVError.documentNotFound }
            let image = try service().document(transactionID: try request.parameter("id"), side: side, viewerKeyID: key.id)
            return IDVWireMapping.documentImage(image)
        }
    }
}

/// The server runs without the face engine (models not installed).
struct IDVUnavailable: Error {}
