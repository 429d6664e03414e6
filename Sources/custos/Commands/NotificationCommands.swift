import CustosAPI
import CustosSDK
import Foundation
import Synchronization

/// `custos notifications …`: the user lists notifications and answers one with the step-up its
/// action demands, in the signed-in profile's session.
enum NotificationCommands {
    static let all: [Command] = [list, act]

    static let history = Flag("history", help: "the answered, expired and failed ones instead of the pending")
    static let uuid = Argument("uuid", help: "the notification_uuid (see 'custos notifications list')")
    static let action = Argument("action", help: "the action to answer with (e.g. approve)")
    static let number = Option<Int?>(optional: "number", "N", help: "with number matching: the number the sender shows (the relying party, or the new device)",
                                     expected: "a number from 10 to 99") { text in Int(text).flatMap { (10...99).contains($0) ? $0 : nil } }
    static let decline = Flag("decline", help: "answer the selfie's start confirmation with no: error 240, the notification stays pending")

    static let list = Command(spec: CommandSpec(
        path: "notifications list", summary: "The signed-in user's pending notifications (or --history).",
        options: [history.spec] + IDVCommands.session, example: "custos notifications list")
    ) { arguments in
        let client = try IDVCommands.signedInClient(arguments)
        let answer = arguments[history] ? try await client.getNotificationHistory() : try await client.getNotifications()
        try ClientOptions.output(arguments, answer) {
            answer.notifications.isEmpty ? ["no notifications"] : answer.notifications.flatMap(describe)
        }
        return .ok
    }

    static let act = Command(spec: CommandSpec(
        path: "notifications act", summary: "Answer a notification: the step-up its action demands (password, device key, selfie).",
        options: [number.spec, ClientOptions.passwordStdin.spec] + IDVCommands.framesOptions + [decline.spec] + IDVCommands.session,
        arguments: [uuid, action], example: "custos notifications act <uuid> approve --password-stdin")
    ) { arguments in
        let client = try IDVCommands.signedInClient(arguments)
        let pending = try await client.getNotifications().notifications
        guard let shown = pending.first(where: { $0.notificationUUID == arguments[uuid] }) else {
            throw CommandFailure("no pending notification \(arguments[uuid]) (see 'custos notifications list --history')")
        }
        guard let chosen = shown.actions.first(where: { $0.action == arguments[action] }) else {
            throw UsageError("the notification's actions are \(shown.actions.map(\.action).joined(separator: ", "))")
        }
        if chosen.authLevel == .serverBiometric, arguments[IDVCommands.frames] == nil, !arguments[decline] {
            throw UsageError("\(chosen.action) demands a selfie (auth level 4): pass --frames DIR, or --decline")
        }
        try IDVCommands.checkFrames(arguments)
        // The password is asked once; a wrong one is reported (exit 4) rather than asked again.
        let asked = Mutex(false)
        let passwordToken = client.events.on(.onGetPassword) { [client] _ in
            let first = asked.withLock { seen in defer { seen = true }; return !seen }
            client.setPassword(first ? try? PasswordInput.read(arguments, prompt: "Password: ") : nil)
        }
        let selfieToken = client.events.on(.onGetIDVSelfieProcessStartConfirmation) { [client] request in
            client.setIDVSelfieProcessStartConfirmation(!arguments[decline], workflow: request.workflow)
        }
        defer {
            passwordToken.remove()
            selfieToken.remove()
        }
        let source: (any FrameSource)? = arguments[IDVCommands.frames].map { IDVCommands.frameSource($0, arguments) }
        let result: UpdateNotificationResult
        do {
            result = try await client.updateNotification(shown, action: chosen.action, number: arguments[number], frameSource: source)
        } catch let error as CustosError where [.localAuthenticationCancelled, .userCancelled, .passwordPromptDismissed].contains(error) {
            Console.out("error \(error.longErrorCode) (\(error.code)): \(error.message)")
            return .cancelled
        }
        try ClientOptions.output(arguments, result) {
            var line = "\(result.statusCode): \(result.statusMessage)"
            if let left = result.attemptsLeft { line += " (\(left) attempts left)" }
            if result.statusCode == .passwordExpired {
                return [line, "the session has ended: 'custos login' answers 110 with a token for 'custos password change', then sign in again and answer"]
            }
            return [line]
        }
        switch result.statusCode {
        case .success, .successAlternate: return .ok
        case .passwordExpired: return .passwordExpired
        case .attemptsExhausted: return .locked
        case .noTemplate: return .noTemplate
        case .userCancelledSelfie: return .cancelled
        default: return .rejected
        }
    }

    static func describe(_ notification: NotificationInfo) -> [String] {
        var lines = ["\(notification.notificationUUID)  \(notification.status)  \(notification.subject)", "  \(notification.message)"]
        if let details = notification.authorizationDetails {
            lines.append("  \(details.type): " + [details.amount, details.currency, details.payee.map { "to \($0)" }].compactMap { $0 }.joined(separator: " "))
        }
        lines.append("  actions: " + notification.actions.map { "\($0.action) (\($0.label), level \($0.authLevel))" }.joined(separator: ", "))
        if notification.numberMatching { lines.append("  number matching: answer with --number N, the number the sender shows you") }
        if let chosen = notification.chosenAction { lines.append("  answered \(chosen) at level \(notification.achievedLevel.map { "\($0)" } ?? "?")") }
        lines.append("  expires \(ISO8601DateFormatter().string(from: notification.expiresAt))")
        return lines
    }
}
