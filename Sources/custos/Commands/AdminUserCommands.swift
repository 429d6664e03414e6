import CustosAPI
import CustosSDK
import Foundation

/// `custos admin user …` and `custos admin device …`: the relying-party API over HTTP with
/// an API key.
enum AdminUserCommands {
    static let remote: [OptionSpec] = [ClientOptions.server, ClientOptions.apiKey, ClientOptions.json]
    /// For the actions whose answer has no body: they confirm in one line of text.
    static let remoteTextOnly: [OptionSpec] = [ClientOptions.server, ClientOptions.apiKey]
    /// The largest page of users the server answers with.
    static let maximumPageSize = 500

    static let all: [Command] = [
        create, list, show, userAction("disable", "Disable a user (ends its sessions).") { try await $0.disableUser($1) },
        userAction("enable", "Enable a disabled user.") { try await $0.enableUser($1) },
        userAction("unlock", "Lift a lockout and give the attempts back.") { try await $0.unlockUser($1) },
        delete, code, grantEnrollment, devices, revokeDevice,
    ]

    static let create = Command(spec: CommandSpec(
        path: "admin user create", summary: "Create a user and print its one-time activation code.",
        options: remote + [.flag("code-only", "print only the activation code (for scripts: CODE=$(custos admin user create alice --code-only))")],
        positionals: ["user"])
    ) { arguments in
        let client = try ClientOptions.adminClient(arguments)
        let userID = arguments.positionals[0]
        let created = try callServer { try await client.createUser(userID) }
        if arguments.has("code-only") {
            print(created.activation.activationCode)
            return .ok
        }
        try ClientOptions.output(arguments, created) {
            ["created \(created.user.userID) (\(created.user.status))",
             "activation code: \(created.activation.activationCode) (expires \(iso(created.activation.expiresAt)))"]
        }
        return .ok
    }

    static let list = Command(spec: CommandSpec(
        path: "admin user list", summary: "List users, a page at a time.",
        options: remote + [.value("after", "USER", "start after this user id"), .value("limit", "N", "page size 1-\(maximumPageSize) (default 100)")])
    ) { arguments in
        let client = try ClientOptions.adminClient(arguments)
        let limit = try arguments.integer("limit", in: 1...maximumPageSize) ?? 100
        let after = arguments.value("after")
        let page = try callServer { try await client.users(after: after, limit: limit) }
        try ClientOptions.output(arguments, page) {
            page.users.map(describe) + (page.nextAfter.map { ["more: --after \($0)"] } ?? [])
        }
        return .ok
    }

    static let show = Command(spec: CommandSpec(path: "admin user show", summary: "Show a user.", options: remote, positionals: ["user"])) { arguments in
        let client = try ClientOptions.adminClient(arguments)
        let userID = arguments.positionals[0]
        let user = try callServer { try await client.user(userID) }
        try ClientOptions.output(arguments, user) { [describe(user)] }
        return .ok
    }

    static let delete = Command(spec: CommandSpec(
        path: "admin user delete", summary: "Delete a user with its devices, sessions and biometric data.", options: remoteTextOnly, positionals: ["user"])
    ) { arguments in
        let client = try ClientOptions.adminClient(arguments)
        let userID = arguments.positionals[0]
        try callServer { try await client.deleteUser(userID) }
        Console.out("deleted \(userID)")
        return .ok
    }

    static let code = Command(spec: CommandSpec(
        path: "admin user code", summary: "Void outstanding activation codes and issue a new one.", options: remote, positionals: ["user"])
    ) { arguments in
        let client = try ClientOptions.adminClient(arguments)
        let userID = arguments.positionals[0]
        let activation = try callServer { try await client.issueActivationCode(userID) }
        try ClientOptions.output(arguments, activation) {
            ["activation code: \(activation.activationCode) (expires \(iso(activation.expiresAt)))"]
        }
        return .ok
    }

    static let grantEnrollment = Command(spec: CommandSpec(
        path: "admin user grant-enrollment",
        summary: "Let the user enrol a biometric template once (replace it, or a first one under --enrollment grant).",
        options: remote, positionals: ["user"])
    ) { arguments in
        let client = try ClientOptions.adminClient(arguments)
        let userID = arguments.positionals[0]
        let grant = try callServer { try await client.grantEnrollment(userID) }
        try ClientOptions.output(arguments, grant) { ["enrolment granted to \(grant.userID) (expires \(iso(grant.expiresAt)))"] }
        return .ok
    }

    static let devices = Command(spec: CommandSpec(
        path: "admin device list", summary: "List a user's devices.", options: remote, positionals: ["user"])
    ) { arguments in
        let client = try ClientOptions.adminClient(arguments)
        let userID = arguments.positionals[0]
        let devices = try callServer { try await client.devices(userID) }
        try ClientOptions.output(arguments, DeviceList(devices: devices)) {
            devices.isEmpty ? ["no devices"] : devices.map {
                "\($0.deviceID)  \($0.name)  created \(iso($0.createdAt))\($0.revokedAt == nil ? "" : "  (revoked)")"
            }
        }
        return .ok
    }

    static let revokeDevice = Command(spec: CommandSpec(
        path: "admin device revoke", summary: "Revoke a device; its sessions end at once.", options: remoteTextOnly, positionals: ["user", "device"])
    ) { arguments in
        let client = try ClientOptions.adminClient(arguments)
        let (userID, deviceID) = (arguments.positionals[0], arguments.positionals[1])
        try callServer { try await client.revokeDevice(userID: userID, deviceID: deviceID) }
        Console.out("revoked \(deviceID)")
        return .ok
    }

    private static func userAction(_ name: String, _ summary: String,
                                   _ call: @escaping @Sendable (CustosAdminClient, String) async throws -> UserInfo) -> Command {
        Command(spec: CommandSpec(path: "admin user \(name)", summary: summary, options: remote, positionals: ["user"])) { arguments in
            let client = try ClientOptions.adminClient(arguments)
            let userID = arguments.positionals[0]
            let user = try callServer { try await call(client, userID) }
            try ClientOptions.output(arguments, user) { [describe(user)] }
            return .ok
        }
    }

    /// `alice  active  password changed 2026-01-02T03:04:05Z  locked until …`
    static func describe(_ user: UserInfo) -> String {
        var fields = [user.userID, user.status]
        if let changed = user.passwordChangedAt { fields.append("password changed \(iso(changed))") }
        if user.locked { fields.append("locked until \(user.lockedUntil.map(iso) ?? "?")") }
        return fields.joined(separator: "  ")
    }
}

func iso(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }
