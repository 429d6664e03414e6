import CustosAPI
import Foundation
import Testing

/// The bytes a seed app reads, pinned: a renamed coding key or a code that changes type fails
/// here, not in an app in the field. And an app built today reads codes a newer server adds.
@Suite struct WireGoldenTests {
    static func encoded(_ value: some Encodable) throws -> String {
        String(decoding: try WireJSON.encoder().encode(value), as: UTF8.self)
    }

    @Test func templateStatus() throws {
        let status = TemplateStatusResponse(statusCode: .noTemplate, statusMessage: "No template", orchestrationUseCase: .checkTemplate,
                                            result: false, attemptsLeft: 5, userID: "alice")
        #expect(try Self.encoded(status) == #"{"attempts_left":5,"orchestration_use_case":"RDNA_IDV_CHECK_TEMPLATE","result":false,"# +
                #""status_code":600,"status_message":"No template","user_id":"alice"}"#)
    }

    @Test func idvResultWithItsAuditInfo() throws {
        let result = IDVResultResponse(
            statusCode: .success, statusMessage: "Success", userID: "alice", workflow: .serverBiometricAuthentication,
            challengeMode: .serverBiometric, purpose: "Approve payment", attempts: 1, attemptsLeft: 5,
            biometricResult: BiometricResultInfo(displayText: .matched),
            idvAuditInfo: IDVAuditInfo(status: .success, idvAuditTransactionID: "idv_1", orchestrationUseCase: .serverBiometricAuthentication,
                                       reason: "Approve payment", auditMetrics: AuditMetrics(startTimestamp: 1_700_000_000, endTimestamp: 1_700_000_009)),
            templateCreated: false, signedResult: "eyJ.x.y")
        #expect(try Self.encoded(result) == #"{"attempts":1,"attempts_left":5,"biometric_result":{"display_text":"MATCHED"},"challenge_mode":25,"# +
                #""idv_audit_info":{"audit_metrics":{"end_timestamp":1700000009,"start_timestamp":1700000000},"idv_audit_transaction_id":"idv_1","# +
                #""orchestration_use_case":"RDNA_IDV_POSTLOGIN_IDV_SELFIE_BIOMETRIC","reason":"Approve payment","status":"SUCCESS"},"# +
                #""purpose":"Approve payment","signed_result":"eyJ.x.y","status_code":100,"status_message":"Success","template_created":false,"# +
                #""user_id":"alice","workflow":8}"#)
    }

    @Test func authenticationResult() throws {
        let result = AuthenticationResult(statusCode: .credentialsRejected, statusMessage: "The credentials were not accepted.",
                                          userID: "alice", attemptsLeft: 4)
        #expect(try Self.encoded(result) == #"{"attempts_left":4,"status_code":401,"status_message":"The credentials were not accepted.","user_id":"alice"}"#)
    }

    @Test func errorEnvelope() throws {
        #expect(try Self.encoded(ErrorEnvelope(code: "rate_limited", message: "Too many requests; retry in 30 s."))
                == #"{"error":{"code":"rate_limited","message":"Too many requests; retry in 30 s."}}"#)
    }

    @Test func notificationStepUpAnswers() throws {
        let password = UpdateNotificationResult(statusCode: .credentialsRejected, statusMessage: "The password is wrong.", notificationUUID: "n1",
                                                action: "approve", attemptsLeft: 4,
                                                stepUp: StepUpChallenge(authLevel: .password, challengeMode: .password))
        #expect(try Self.encoded(password) == #"{"action":"approve","attempts_left":4,"notification_uuid":"n1","# +
                #""status_code":401,"status_message":"The password is wrong.","step_up":{"auth_level":1,"challenge_mode":3}}"#)
        let selfie = UpdateNotificationResult(statusCode: .stepUpRequired, statusMessage: "Take a selfie to answer.", notificationUUID: "n1",
                                              action: "approve",
                                              stepUp: StepUpChallenge(authLevel: .serverBiometric, idvWorkflow: .stepUpBiometric,
                                                                      idvAuditTransactionID: "idv_9"))
        #expect(try Self.encoded(selfie) == #"{"action":"approve","notification_uuid":"n1","status_code":102,"# +
                #""status_message":"Take a selfie to answer.","step_up":{"auth_level":4,"idv_audit_transaction_id":"idv_9","idv_workflow":9}}"#)
    }

    /// What a level 3 signature covers, byte for byte: an app that builds it otherwise fails.
    @Test func stepUpSigningContent() throws {
        let bytes = StepUpContent.bytes(notificationUUID: "n1", action: "approve", subject: "Payment", message: "Pay 12.00 EUR?",
                                        details: TransactionDetails(type: "payment", amount: "12.00", currency: "EUR", payee: "ACME / Co"),
                                        number: 42)
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"action":"approve","authorization_details":{"amount":"12.00","currency":"EUR","# +
                #""payee":"ACME / Co","type":"payment"},"message":"Pay 12.00 EUR?","notification_uuid":"n1","number":42,"subject":"Payment"}"#)
    }

    /// The golden cases the web app's `canonicalJSON` is held to as well (in the browser flows):
    /// what a device signature covers is the same bytes in Swift and in JavaScript.
    @Test func stepUpSigningContentMatchesTheSharedGoldenCases() throws {
        struct Golden: Decodable {
            struct Case: Decodable {
                struct Input: Decodable {
                    let notificationUUID: String, action: String, subject: String, message: String
                    let authorizationDetails: TransactionDetails?
                    let number: Int?
                    enum CodingKeys: String, CodingKey {
                        case action, subject, message, number
                        case notificationUUID = "notification_uuid"
                        case authorizationDetails = "authorization_details"
                    }
                }
                let name: String
                let input: Input
                let canonical: String
            }
            let cases: [Case]
        }
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/step-up-content.json")
        let golden = try JSONDecoder().decode(Golden.self, from: Data(contentsOf: file))
        #expect(golden.cases.count >= 5)
        for item in golden.cases {
            let input = item.input
            let bytes = StepUpContent.bytes(notificationUUID: input.notificationUUID, action: input.action, subject: input.subject,
                                            message: input.message, details: input.authorizationDetails, number: input.number)
            #expect(String(decoding: bytes, as: UTF8.self) == item.canonical, "\(item.name)")
        }
    }

    /// A newer server's codes decode, keep their value and compare unequal to the known ones.
    @Test func unknownCodesAreKept() throws {
        let json = #"{"attempts":1,"attempts_left":5,"biometric_result":{"display_text":"PARTIAL_MATCH"},"challenge_mode":31,"# +
            #""idv_audit_info":{"audit_metrics":{"end_timestamp":1,"start_timestamp":0},"idv_audit_transaction_id":"idv_1","# +
            #""orchestration_use_case":"RDNA_IDV_SOMETHING_NEW","reason":"r","status":"PENDING"},"purpose":"p","status_code":170,"# +
            #""status_message":"New","template_created":false,"user_id":"alice","workflow":12}"#
        let result = try WireJSON.decoder().decode(IDVResultResponse.self, from: Data(json.utf8))
        #expect(result.statusCode.rawValue == 170 && !result.statusCode.isSuccess && result.statusCode != .success)
        #expect(result.workflow == 12 && result.challengeMode == 31)
        #expect(result.biometricResult?.displayText.rawValue == "PARTIAL_MATCH" && result.biometricResult?.displayText != .matched)
        #expect(result.idvAuditInfo.status.rawValue == "PENDING" && result.idvAuditInfo.orchestrationUseCase == "RDNA_IDV_SOMETHING_NEW")
        #expect(try Self.encoded(result) == json)
    }
}
