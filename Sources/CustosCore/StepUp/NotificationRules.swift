import CustosAPI
import Foundation

/// What a notification may say and ask for.
enum NotificationRules {
    static func check(_ draft: NotificationDraft, policy: NotificationPolicy, biometricsAvailable: Bool) throws {
        try text(draft.subject, field: "subject", limit: 200, lines: false)
        try text(draft.message, field: "message", limit: 2000, lines: true)
        guard (1...6).contains(draft.actions.count) else { throw StepUpError.invalid("actions", "must hold 1 to 6 actions") }
        var names = Set<String>()
        for (index, action) in draft.actions.enumerated() {
            try text(action.label, field: "actions[\(index)].label", limit: 64, lines: false)
            guard (1...64).contains(action.action.utf8.count), action.action.utf8.allSatisfy(isNameByte) else {
                throw StepUpError.invalid("actions[\(index)].action", "must be 1 to 64 characters of A-Z a-z 0-9 . _ -")
            }
            guard names.insert(action.action).inserted else {
                throw StepUpError.invalid("actions[\(index)].action", "repeats \"\(action.action)\"")
            }
            switch action.authLevel {
            case .none, .password, .deviceSignature: break
            case .serverBiometric: if !biometricsAvailable { throw StepUpError.biometricsUnavailable }
            case .appDefined: if !policy.allowsAppDefinedLevel { throw StepUpError.levelNotAllowed }
            default: throw StepUpError.invalid("actions[\(index)].auth_level", "must be 0 (none), 1 (password), 3 (device signature) or 4 (server biometric)")
            }
        }
        if let lifetime = draft.lifetime, !(10...policy.maximumLifetime).contains(lifetime) {
            throw StepUpError.invalid("expires_in", "must be 10 to \(Int(policy.maximumLifetime)) seconds")
        }
        if let details = draft.details { try check(details) }
    }

    static func check(_ details: TransactionDetails) throws {
        try text(details.type, field: "authorization_details.type", limit: 64, lines: false)
        if let amount = details.amount {
            let parts = amount.split(separator: ".", omittingEmptySubsequences: false)
            let digits = { (part: Substring) in !part.isEmpty && part.utf8.allSatisfy { (48...57).contains($0) } }
            guard amount.utf8.count <= 24, (parts.count == 1 || parts.count == 2), parts.allSatisfy(digits) else {
                throw StepUpError.invalid("authorization_details.amount", "must be a decimal number as a string, e.g. \"120.50\"")
            }
        }
        if let currency = details.currency, currency.utf8.count != 3 || !currency.utf8.allSatisfy({ (65...90).contains($0) }) {
            throw StepUpError.invalid("authorization_details.currency", "must be an ISO 4217 code such as \"EUR\"")
        }
        if let payee = details.payee { try text(payee, field: "authorization_details.payee", limit: 200, lines: false) }
        if let reference = details.reference { try text(reference, field: "authorization_details.reference", limit: 200, lines: false) }
    }

    private static func text(_ value: String, field: String, limit: Int, lines: Bool) throws {
        guard !value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, value.count <= limit else {
            throw StepUpError.invalid(field, "must be 1 to \(limit) characters")
        }
        let control = value.unicodeScalars.contains { $0.properties.generalCategory == .control && !(lines && $0 == "\n") }
        guard !control else { throw StepUpError.invalid(field, "must not hold control characters") }
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte) || byte == 46 || byte == 95 || byte == 45
    }
}
