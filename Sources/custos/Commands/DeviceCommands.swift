import CustosAPI
import CustosSDK
import Foundation

/// What an app does, from the command line: activate this device, log in and out, change
/// the password. State lives in the profile directory.
enum DeviceCommands {
    static let all: [Command] = [activate, login, logout, changePassword, list, revoke]

    static let user = Option<String?>.text("user", "USER", help: "the user id").required()
    static let code = Option<String?>.text("code", "CODE", help: "the activation code").required()
    static let name = Option<String?>.text("name", "NAME", help: "device name (default: this host's name)")
    static let noPassword = Flag("no-password", help: "device signature only (when the policy allows)")
    static let token = Option<String?>.text("token", "TOKEN", help: "the password_change_token of a 110 answer")

    static let activate = Command(spec: CommandSpec(
        path: "device activate", summary: "Bind this device to a user with the one-time activation code and set the password.",
        options: [user.spec, code.spec, name.spec, ClientOptions.passwordStdin.spec,
                  ClientOptions.server.spec, ClientOptions.profile.spec, ClientOptions.json.spec],
        example: "custos device activate --user alice --code <activation code> --server http://127.0.0.1:8080")
    ) { arguments in
        let (userID, code) = (try arguments[user], try arguments[code])
        let server = try ClientOptions.serverURL(arguments)
        let directory = Profile.directory(arguments)
        let password = try PasswordInput.readNew(arguments)
        let name = arguments[name] ?? ProcessInfo.processInfo.hostName
        let client = try Profile.client(server: server, directory: directory)
        let result = try await client.activate(userID: userID, activationCode: code, password: password, deviceName: name)
        if let deviceID = result.deviceID {
            try Profile(server: server.absoluteString, userID: userID, deviceID: deviceID, sessionToken: result.session?.token).save(directory)
        }
        return try report(arguments, result, success: "activated \(result.deviceID ?? "?") for \(userID); logged in")
    }

    static let login = Command(spec: CommandSpec(
        path: "login", summary: "Log in with this device's key, and the password when the server asks for it.",
        options: [ClientOptions.passwordStdin.spec, noPassword.spec,
                  ClientOptions.profile.spec, ClientOptions.profileServer.spec, ClientOptions.json.spec])
    ) { arguments in
        let (saved, directory, client) = try Profile.open(arguments)
        var profile = saved
        let password = arguments[noPassword] ? nil : try PasswordInput.read(arguments, prompt: "Password: ")
        let (userID, deviceID) = (profile.userID, profile.deviceID)
        let result = try await client.login(userID: userID, deviceID: deviceID, password: password)
        if let token = result.session?.token {
            profile.sessionToken = token
            try profile.save(directory)
        }
        return try report(arguments, result, success: "logged in as \(userID)")
    }

    static let logout = Command(spec: CommandSpec(
        path: "logout", summary: "End the session on the server (and forget it here, also when the server has already ended it).",
        options: [ClientOptions.profile.spec, ClientOptions.profileServer.spec])
    ) { arguments in
        let (saved, directory, client) = try Profile.open(arguments)
        var profile = saved
        guard profile.sessionToken != nil else {
            Console.out("not logged in")
            return .ok
        }
        var message = "logged out"
        do {
            try await client.logout()
        } catch let error as CustosError where error.httpStatus == 401 {
            // Expired or revoked: there is nothing left to end on the server.
            message = "the session had already ended; logged out"
        }
        profile.sessionToken = nil
        try profile.save(directory)
        Console.out(message)
        return .ok
    }

    static let changePassword = Command(spec: CommandSpec(
        path: "password change",
        summary: "Change the password (old then new; with --password-stdin, two lines). Works in a session or after status 110 with --token.",
        options: [ClientOptions.passwordStdin.spec, token.spec,
                  ClientOptions.profile.spec, ClientOptions.profileServer.spec, ClientOptions.json.spec])
    ) { arguments in
        let (profile, _, client) = try Profile.open(arguments)
        let old = try PasswordInput.read(arguments, prompt: "Old password: ")
        let new: String
        if arguments[ClientOptions.passwordStdin] {
            new = try PasswordInput.nextLine("new password")
        } else {
            new = try PasswordInput.promptWithoutEcho("New password: ")
            try PasswordInput.confirm(new)
        }
        let token = arguments[token]
        let userID = profile.userID
        let result = try await client.changePassword(userID: userID, oldPassword: old, newPassword: new, passwordChangeToken: token)
        return try report(arguments, result, success: "password changed")
    }

    static let deviceID = Argument("device", help: "the device id (from device list)")

    static let list = Command(spec: CommandSpec(
        path: "device list", summary: "List the signed-in user's devices: name, kind of key, how, when and from where bound, probation, last used, revoked.",
        options: [ClientOptions.profile.spec, ClientOptions.profileServer.spec, ClientOptions.json.spec])
    ) { arguments in
        let (profile, _, client) = try Profile.open(arguments)
        let devices = try await client.devices()
        try ClientOptions.output(arguments, DeviceList(devices: devices)) {
            devices.map { device in
                var line = "\(device.deviceID)  \(device.name)  \(device.keyKind ?? "device_key")  bound \(iso(device.createdAt))"
                if let how = device.boundBy { line += " by \(how)" }
                if let from = device.boundFrom { line += " from \(from)" }
                if let until = device.probationUntil, until > Date() { line += ", on probation until \(iso(until))" }
                if let used = device.lastUsedAt { line += "  last used \(iso(used))" }
                if let revoked = device.revokedAt { line += "  revoked \(iso(revoked))" }
                if device.deviceID == profile.deviceID { line += "  (this device)" }
                return line
            }
        }
        return .ok
    }

    static let revoke = Command(spec: CommandSpec(
        path: "device revoke", summary: "Unbind one of the signed-in user's devices (asks for the password again).",
        options: [ClientOptions.passwordStdin.spec, ClientOptions.profile.spec, ClientOptions.profileServer.spec, ClientOptions.json.spec],
        arguments: [deviceID], example: "custos device revoke 5f0c…")
    ) { arguments in
        let (_, _, client) = try Profile.open(arguments)
        let password = try PasswordInput.read(arguments, prompt: "Password: ")
        let device = arguments[deviceID]
        return try report(arguments, try await client.revokeDevice(device, password: password), success: "revoked \(device)")
    }

    /// Prints the result and maps its status to the exit code.
    static func report(_ arguments: ParsedArguments, _ result: AuthenticationResult, success: String) throws -> ExitCode {
        try ClientOptions.output(arguments, result) {
            switch result.statusCode {
            case StatusCode.success, StatusCode.successAlternate: [success]
            case StatusCode.passwordExpired:
                ["password expired (110): change it with 'custos password change --token \(result.passwordChangeToken ?? "")'"]
            case StatusCode.attemptsExhausted: ["attempts exhausted (153): the user is locked"]
            default: ["not accepted (\(result.statusCode)): \(result.attemptsLeft) attempts left"]
            }
        }
        switch result.statusCode {
        case StatusCode.success, StatusCode.successAlternate: return .ok
        case StatusCode.passwordExpired: return .passwordExpired
        case StatusCode.attemptsExhausted: return .locked
        default: return .rejected
        }
    }
}
