import CustosAPI
import CustosSDK
import Foundation

/// `custos admin user …` and `custos admin device …`: the relying-party API over HTTP with
/// an API key.
enum AdminUserCommands {
    static let remote: [OptionSpec] = [ClientOptions.server.spec, ClientOptions.apiKey.spec, ClientOptions.json.spec]
    /// For the actions whose answer has no body: they confirm in one line of text.
    static let remoteTextOnly: [OptionSpec] = [ClientOptions.server.spec, ClientOptions.apiKey.spec]
    /// The largest page of users the server answers with.
    static let maximumPageSize = 500

    static let user = Argument("user", help: "the user id")
    static let device = Argument("device", help: "the device id (from admin device list)")
    static let codeOnly = Flag("code-only", help: "print only the activation code (for scripts: CODE=$(custos admin user create alice --code-only))")
    static let after = Option<String?>.text("after", "USER", help: "start after this user id")
    static let limit = Option<Int>.integer("limit", in: 1...maximumPageSize, default: 100, help: "page size 1-\(maximumPageSize)")

    static let all: [Command] = [
        create, list, show, userAction("disable", "Disable a user (ends its sessions).") { try await $0.disableUser($1) },
        userAction("enable", "Enable a disabled user.") { try await $0.enableUser($1) },
        userAction("unlock", "Lift a lockout and give the attempts back.") { try await $0.unlockUser($1) },
        userAction("expire-password", "Make the user set a new password at the next sign-in (110).") { try await $0.expirePassword($1) },
        delete, code, reset, grantEnrollment, claims, setClaims, devices, revokeDevice,
    ]

    static let create = Command(spec: CommandSpec(
        path: "admin user create", summary: "Create a user and print its one-time activation code.",
        options: remote + [codeOnly.spec], arguments: [user], example: "custos admin user create alice")
    ) { arguments in
        let client = try ClientOptions.adminClient(arguments)
        let userID = arguments[user]
        let created = try await client.createUser(userID)
        if arguments[codeOnly] {
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
        options: remote + [after.spec, limit.spec], example: "custos admin user list --limit 20")
    ) { arguments in
        let client = try ClientOptions.adminClient(arguments)
        let page = try await client.users(after: arguments[after], limit: arguments[limit])
        try ClientOptions.output(arguments, page) {
            page.users.map(describe) + (page.nextAfter.map { ["more: --after \($0)"] } ?? [])
        }
        return .ok
    }

    static let show = Command(spec: CommandSpec(path: "admin user show", summary: "Show a user.", options: remote, arguments: [user])) { arguments in
        let client = try ClientOptions.adminClient(arguments)
        let userID = arguments[user]
        let user = try await client.user(userID)
        try ClientOptions.output(arguments, user) { [describe(user)] }
        return .ok
    }

    static let delete = Command(spec: CommandSpec(
        path: "admin user delete", summary: "Delete a user with its devices, sessions and biometric data.", options: remoteTextOnly, arguments: [user])
    ) { arguments in
        let client = try ClientOptions.adminClient(arguments)
        let userID = arguments[user]
        try await client.deleteUser(userID)
        Console.out("deleted \(userID)")
        return .ok
    }

    static let reset = Command(spec: CommandSpec(
        path: "admin user reset", summary: "Start a user over: unbind every device, end its sessions and tokens, issue a new activation code.",
        options: remote + [codeOnly.spec], arguments: [user], example: "custos admin user reset alice")
    ) { arguments in
        let client = try ClientOptions.adminClient(arguments)
        let activation = try await client.resetUser(arguments[user])
        if arguments[codeOnly] {
            print(activation.activationCode)
            return .ok
        }
        try ClientOptions.output(arguments, activation) {
            ["reset \(activation.userID): devices unbound, sessions and tokens ended",
             "activation code: \(activation.activationCode) (expires \(iso(activation.expiresAt)))"]
        }
        return .ok
    }

    static let code = Command(spec: CommandSpec(
        path: "admin user code", summary: "Void a user's outstanding activation codes and issue a new one (before activation).", options: remote, arguments: [user])
    ) { arguments in
        let client = try ClientOptions.adminClient(arguments)
        let userID = arguments[user]
        let activation = try await client.issueActivationCode(userID)
        try ClientOptions.output(arguments, activation) {
            ["activation code: \(activation.activationCode) (expires \(iso(activation.expiresAt)))"]
        }
        return .ok
    }

    static let grantEnrollment = Command(spec: CommandSpec(
        path: "admin user grant-enrollment",
        summary: "Let the user change the biometric template once: replace or delete it (opt-out), or enrol a first one under --enrollment grant.",
        options: remote, arguments: [user])
    ) { arguments in
        let client = try ClientOptions.adminClient(arguments)
        let userID = arguments[user]
        let grant = try await client.grantEnrollment(userID)
        try ClientOptions.output(arguments, grant) { ["enrolment granted to \(grant.userID) (expires \(iso(grant.expiresAt)))"] }
        return .ok
    }

    static let claimsJSON = Argument("claims", help: #"the claims as one JSON object ('{"email":"alice@example.com"}'), @FILE, or - for standard input (kept out of the shell's history)"#)

    static let claims = Command(spec: CommandSpec(
        path: "admin user claims", summary: "Show the standard OpenID claims stated about a user.", options: remote, arguments: [user])
    ) { arguments in
        let client = try ClientOptions.adminClient(arguments)
        let claims = try await client.userClaims(arguments[user])
        try ClientOptions.output(arguments, claims) { describe(claims) }
        return .ok
    }

    static let setClaims = Command(spec: CommandSpec(
        path: "admin user set-claims",
        summary: "Replace a user's standard OpenID claims (name, email, phone_number, address…), released from UserInfo by scope.",
        options: remote, arguments: [user, claimsJSON],
        example: #"custos admin user set-claims alice '{"name":"Alice Liddell","email":"alice@example.com","email_verified":true}'"#)
    ) { arguments in
        let text = arguments[claimsJSON]
        let json: Data
        if text == "-" {
            json = FileHandle.standardInput.readDataToEndOfFile()
        } else if text.hasPrefix("@") {
            guard let contents = FileManager.default.contents(atPath: String(text.dropFirst())) else {
                throw UsageError("cannot read the claims file \(text.dropFirst())")
            }
            json = contents
        } else {
            json = Data(text.utf8)
        }
        let given: UserClaims
        do {
            given = try WireJSON.requestDecoder().decode(UserClaims.self, from: json)
        } catch let error as DecodingError {
            throw UsageError("the claims must be one JSON object of standard claims: \(explain(error))")
        }
        let client = try ClientOptions.adminClient(arguments)
        let claims = try await client.setUserClaims(arguments[user], given)
        try ClientOptions.output(arguments, claims) { describe(claims) }
        return .ok
    }

    /// The claims stated, as indented JSON with sorted names (the text form is the JSON form).
    static func describe(_ claims: UserClaims) -> [String] {
        guard claims != UserClaims() else { return ["no claims"] }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(claims) else { return ["(the claims could not be shown)"] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    private static func explain(_ error: DecodingError) -> String {
        switch error {
        case .dataCorrupted(let context) where context.codingPath.isEmpty: "not valid JSON"
        case .dataCorrupted(let context): context.debugDescription
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            "\(context.codingPath.map(\.stringValue).joined(separator: ".")) has the wrong type"
        default: "it has the wrong shape"
        }
    }

    static let devices = Command(spec: CommandSpec(
        path: "admin device list", summary: "List a user's devices.", options: remote, arguments: [user])
    ) { arguments in
        let client = try ClientOptions.adminClient(arguments)
        let userID = arguments[user]
        let devices = try await client.devices(userID)
        try ClientOptions.output(arguments, DeviceList(devices: devices)) {
            devices.isEmpty ? ["no devices"] : devices.map {
                "\($0.deviceID)  \($0.name)  created \(iso($0.createdAt))\($0.revokedAt == nil ? "" : "  (revoked)")"
            }
        }
        return .ok
    }

    static let revokeDevice = Command(spec: CommandSpec(
        path: "admin device revoke", summary: "Revoke a device; its sessions end at once.", options: remoteTextOnly, arguments: [user, device])
    ) { arguments in
        let client = try ClientOptions.adminClient(arguments)
        let (userID, deviceID) = (arguments[user], arguments[device])
        try await client.revokeDevice(userID: userID, deviceID: deviceID)
        Console.out("revoked \(deviceID)")
        return .ok
    }

    private static func userAction(_ name: String, _ summary: String,
                                   _ call: @escaping @Sendable (CustosAdminClient, String) async throws -> UserInfo) -> Command {
        Command(spec: CommandSpec(path: "admin user \(name)", summary: summary, options: remote, arguments: [user])) { arguments in
            let client = try ClientOptions.adminClient(arguments)
            let userID = arguments[user]
            let user = try await call(client, userID)
            try ClientOptions.output(arguments, user) { [describe(user)] }
            return .ok
        }
    }

    /// `alice  active  password changed 2026-01-02T03:04:05Z  password expired: must change  locked until …`
    static func describe(_ user: UserInfo) -> String {
        var fields = [user.userID, user.status]
        if let changed = user.passwordChangedAt { fields.append("password changed \(iso(changed))") }
        if user.passwordMustChange == true { fields.append("password expired: must change") }
        if user.locked { fields.append("locked until \(user.lockedUntil.map(iso) ?? "?")") }
        return fields.joined(separator: "  ")
    }
}

func iso(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }
