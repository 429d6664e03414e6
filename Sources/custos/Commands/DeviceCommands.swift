import CustosAPI
import CustosSDK
import Foundation

/// What an app does, from the command line: activate this device, log in and out, change
/// the password. State lives in the profile directory.
enum DeviceCommands {
    static let all: [Command] = [activate, login, logout, changePassword]

    static let activate = Command(spec: CommandSpec(
        path: "device activate", summary: "Bind this device to a user with the one-time activation code and set the password.",
        options: [.value("user", "USER", "the user id"), .value("code", "CODE", "the activation code"),
                  .value("name", "NAME", "device name (default: this host's name)"), ClientOptions.passwordStdin,
                  ClientOptions.server, ClientOptions.profile, ClientOptions.json])
    ) { arguments in
        guard let userID = arguments.value("user") else { throw UsageError("--user is required") }
        guard let code = arguments.value("code") else { throw UsageError("--code is required") }
        let server = try ClientOptions.serverURL(arguments)
        let directory = Profile.directory(arguments)
        let password = try PasswordInput.readNew(arguments)
        let name = arguments.value("name") ?? ProcessInfo.processInfo.hostName
        let client = try Profile.client(server: server, directory: directory)
        let result = try callServer { try await client.activate(userID: userID, activationCode: code, password: password, deviceName: name) }
        if let deviceID = result.deviceID {
            try Profile(server: server.absoluteString, userID: userID, deviceID: deviceID, sessionToken: result.session?.token).save(directory)
        }
        return try report(arguments, result, success: "activated \(result.deviceID ?? "?") for \(userID); logged in")
    }

    static let login = Command(spec: CommandSpec(
        path: "login", summary: "Log in with this device's key, and the password when the server asks for it.",
        options: [ClientOptions.passwordStdin, .flag("no-password", "device signature only (when the policy allows)"),
                  ClientOptions.profile, ClientOptions.json])
    ) { arguments in
        let (saved, directory, client) = try Profile.open(arguments)
        var profile = saved
        let password = arguments.has("no-password") ? nil : try PasswordInput.read(arguments, prompt: "Password: ")
        let (userID, deviceID) = (profile.userID, profile.deviceID)
        let result = try callServer { try await client.login(userID: userID, deviceID: deviceID, password: password) }
        if let token = result.session?.token {
            profile.sessionToken = token
            try profile.save(directory)
        }
        return try report(arguments, result, success: "logged in as \(userID)")
    }

    static let logout = Command(spec: CommandSpec(
        path: "logout", summary: "End the session on the server (and forget it here, also when the server has already ended it).",
        options: [ClientOptions.profile])
    ) { arguments in
        let (saved, directory, client) = try Profile.open(arguments)
        var profile = saved
        guard profile.sessionToken != nil else {
            Console.out("not logged in")
            return .ok
        }
        var message = "logged out"
        do {
            try callServer { try await client.logout() }
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
        options: [ClientOptions.passwordStdin, .value("token", "TOKEN", "the password_change_token of a 110 answer"),
                  ClientOptions.profile, ClientOptions.json])
    ) { arguments in
        let (profile, _, client) = try Profile.open(arguments)
        let old = try PasswordInput.read(arguments, prompt: "Old password: ")
        let new: String
        if arguments.has("password-stdin") {
            new = try PasswordInput.nextLine("new password")
        } else {
            new = try PasswordInput.promptWithoutEcho("New password: ")
            try PasswordInput.confirm(new)
        }
        let token = arguments.value("token")
        let userID = profile.userID
        let result = try callServer { try await client.changePassword(userID: userID, oldPassword: old, newPassword: new, passwordChangeToken: token) }
        return try report(arguments, result, success: "password changed")
    }

    /// Prints the result and maps its status to the exit code.
    private static func report(_ arguments: ParsedArguments, _ result: AuthenticationResult, success: String) throws -> ExitCode {
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
