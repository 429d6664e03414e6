import CustosAPI
import CustosSDK
import Foundation

/// `custos notify …`: the relying party sends a step-up notification and reads its signed result.
enum NotifyCommands {
    static let all: [Command] = [send, status]

    static let user = Option<String?>.text("user", "USER", help: "the user to ask").required()
    static let subject = Option<String?>.text("subject", "TEXT", help: "the notification's title").required()
    static let message = Option<String?>.text("message", "TEXT", help: "what the user is asked").required()
    static let action = Option<String?>.text("action", "LABEL:ACTION:LEVEL",
                                             help: "an action and its auth level (0 none, 1 password, 3 device signature, 4 selfie); repeat for each")
    static let type = Option<String>.text("type", "TYPE", default: "payment", help: "the transaction's type, with --amount/--payee")
    static let amount = Option<String?>.text("amount", "N", help: "transaction amount, a decimal (\"120.50\")")
    static let currency = Option<String?>.text("currency", "CODE", help: "ISO 4217 currency (EUR)")
    static let payee = Option<String?>.text("payee", "NAME", help: "who is paid")
    static let expiresIn = Option<Int>.integer("expires-in", "SECONDS", in: 10...86400, default: 300, help: "seconds until it expires")
    static let numberMatching = Flag("number-matching", help: "the user must pick the number printed here (against push fatigue)")
    static let callback = Option<String?>.text("callback", "URL", help: "where the signed result is POSTed when final")
    static let uuid = Argument("uuid", help: "the notification_uuid that notify send printed")

    static let send = Command(spec: CommandSpec(
        path: "notify send", summary: "Send a user a notification whose actions each demand their own proof.",
        options: [user.spec, subject.spec, message.spec, action.spec, type.spec, amount.spec, currency.spec, payee.spec, expiresIn.spec,
                  numberMatching.spec, callback.spec] + AdminUserCommands.remote,
        example: "custos notify send --user alice --subject 'Payment' --message 'Pay 120.50 EUR to ACME?' --action Approve:approve:1 --action Deny:deny:0 --amount 120.50 --currency EUR --payee ACME"),
        validate: { arguments in _ = try actions(arguments) }
    ) { arguments in
        let client = try ClientOptions.adminClient(arguments)
        let hasDetails = arguments[amount] != nil || arguments[payee] != nil || arguments[currency] != nil
        let created = try await client.createNotification(CreateNotificationRequest(
            userID: try arguments[user], subject: try arguments[subject], message: try arguments[message], actions: try actions(arguments),
            authorizationDetails: hasDetails ? TransactionDetails(type: arguments[type], amount: arguments[amount], currency: arguments[currency],
                                                                  payee: arguments[payee]) : nil,
            expiresIn: arguments[expiresIn], numberMatching: arguments[numberMatching] ? true : nil, callbackURL: arguments[callback]))
        try ClientOptions.output(arguments, created) {
            [created.notificationUUID] + (created.number.map { ["number to show the user: \($0)"] } ?? [])
        }
        return .ok
    }

    static let status = Command(spec: CommandSpec(
        path: "notify status", summary: "A notification's state, the action chosen, the level proved, the signed result and its webhook.",
        options: AdminUserCommands.remote, arguments: [uuid], example: "custos notify status <uuid>")
    ) { arguments in
        let result = try await ClientOptions.adminClient(arguments).notificationResult(arguments[uuid])
        try ClientOptions.output(arguments, result) {
            var line = "\(result.notificationUUID)  user=\(result.userID)  \(result.status)"
            if let action = result.action { line += "  action=\(action)" }
            if let level = result.authLevel { line += "  auth_level=\(level)  amr=\((result.amr ?? []).joined(separator: ","))" }
            var lines = [line]
            if let delivery = result.delivery {
                lines.append("webhook \(delivery.deliveryID): \(delivery.state) after \(delivery.attempts) attempt(s)"
                             + (delivery.lastStatus.map { ", last HTTP \($0)" } ?? "") + (delivery.lastError.map { ", \($0)" } ?? ""))
            }
            if let signed = result.signedResult { lines.append("signed result: \(signed)") }
            return lines
        }
        return .ok
    }

    /// The `--action` values as actions.
    static func actions(_ arguments: ParsedArguments) throws -> [NotificationAction] {
        let given = arguments.every(action.spec)
        guard !given.isEmpty else { throw UsageError("--action LABEL:ACTION:LEVEL is required (repeat it for each action)") }
        return try given.map { text in
            let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty, let level = Int(parts[2]) else {
                throw UsageError("--action '\(text)': write LABEL:ACTION:LEVEL, e.g. Approve:approve:1")
            }
            return NotificationAction(label: parts[0], action: parts[1], authLevel: AuthLevel(rawValue: level))
        }
    }
}
