import CustosCore
@testable import CustosHTTP
@testable import CustosServer
import Foundation
import Testing

/// Every domain error states its kind, and each kind is one status: a new error type is
/// answered by what it says it is, never a 500 by omission.
@Suite struct ErrorMappingTests {
    /// An error type no mapping has heard of.
    struct NewError: DomainError {
        let kind: ErrorKind
        let code = "brand_new"
        let message = "A brand new refusal."
    }

    static let statuses: [ErrorKind: Int] = [
        .malformed: 400, .unauthenticated: 401, .forbidden: 403, .notFound: 404, .conflict: 409, .pending: 409, .gone: 410,
        .tooLarge: 413, .unsupportedMedia: 415, .invalidInput: 422, .locked: 423, .throttled: 429, .internal: 500,
    ]

    @Test func aNewErrorTypeIsAnsweredByItsKind() throws {
        #expect(Set(Self.statuses.keys) == Set(ErrorKind.allCases), "every kind has its row here")
        for kind in ErrorKind.allCases {
            let answer = try #require(ErrorMapping.httpError(for: NewError(kind: kind)))
            #expect(answer.status == Self.statuses[kind])
            if kind == .internal {
                #expect(answer == .internalError, "a fault of the server's own says nothing of itself")
            } else {
                #expect(answer.code == "brand_new" && answer.message == "A brand new refusal." && answer.headers.isEmpty)
            }
        }
    }

    @Test func eachDomainErrorTypeIsAnsweredThroughItsKind() throws {
        let cases: [(any DomainError, Int, String)] = [
            (IdentityError.userNotFound, 404, "user_not_found"),
            (IDVError.frameNotJPEG(index: 0), 415, "frame_not_jpeg"),
            (StepUpError.expired, 410, "notification_expired"),
            (StepUpError.tooMany("from this API key"), 429, "too_many_pending"),
            (OIDCError.accessDenied, 403, "access_denied"),
            (SecurityEventError.invalid("format", "is unknown"), 400, "invalid_field"),
            (AuditError.invalidPage("the limit must be 1-1000"), 422, "invalid_field"),
            (AuditError.invalidIdentifier(field: "user_id"), 422, "invalid_field"),
            (AuditError.brokenChain(AuditChainBreak(sequence: 3, reason: .hashMismatch)), 500, "internal_error"),
        ]
        for (error, status, code) in cases {
            let answer = try #require(ErrorMapping.httpError(for: error))
            #expect(answer.status == status && answer.code == code, "\(error)")
        }
        // The audit listing's refusals name the query parameter and what it takes.
        #expect(ErrorMapping.httpError(for: AuditError.invalidIdentifier(field: "user_id"))?.message
                == "user must be 1-256 bytes without control characters.")
        #expect(ErrorMapping.httpError(for: AuditError.invalidPage("the limit must be 1-1000"))?.message
                == "Invalid audit page: the limit must be 1-1000.")
    }

    @Test func whenToAskAgainIsTheErrorsOwn() throws {
        let throttled = try #require(ErrorMapping.httpError(for: IdentityError.throttled(retryAfter: 7)))
        #expect(throttled.status == 429 && throttled.headers["Retry-After"] == "7")
        let pending = try #require(ErrorMapping.httpError(for: IdentityError.approvalPending))
        #expect(pending.status == 409 && pending.headers["Retry-After"] == "2")
        let held = try #require(ErrorMapping.httpError(for: IdentityError.attemptsInFlight))
        #expect(held.status == 429 && held.headers["Retry-After"] == "1")
    }

    /// Not a domain error, not the server's: no answer of its own, so the server logs it and answers 500.
    @Test func anErrorOfNoKnownKindIsLeftToTheServer() {
        struct Stray: Error {}
        #expect(ErrorMapping.httpError(for: Stray()) == nil)
    }
}
