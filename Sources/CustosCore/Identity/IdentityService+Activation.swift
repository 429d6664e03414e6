import Foundation

extension IdentityService {
    /// Binds a device to the user with the one-time code and sets the password.
    ///
    /// Everything that can be checked without the code (password policy, key) is checked
    /// first, so a mistake there does not burn the code. The code is consumed atomically: of
    /// any number of concurrent activations with one code, exactly one succeeds.
    ///
    /// Wrong codes count per user and client address (`policy.activationAttempts` within
    /// `lockoutBase`) and per user from every address (`policy.activationAttemptsPerUser`,
    /// which voids the code): one source cannot void a pending user's real code.
    public func activate(userID: String, code: String, password: String, deviceName: String,
                         deviceKey: DevicePublicKey, client: String? = nil) throws -> AuthenticationOutcome {
        try InputRules.checkUserID(userID)
        guard !code.isEmpty, code.utf8.count <= 64 else {
            throw IdentityError.invalidInput(field: "activation_code", reason: "must be 1-64 characters")
        }
        try InputRules.checkPasswordLength(password, field: "password")
        let name = try InputRules.checkName(deviceName, field: "device_name")
        if let problem = policy.passwordProblem(password, userID: userID) { throw IdentityError.passwordPolicy(problem) }
        let thumbprint = try keys.thumbprint(of: deviceKey)
        let now = clock.now()

        // A try is taken from both counts before the code is judged, so parallel guesses cannot
        // exceed either limit; one write transaction takes both (a refusal by the second rolls
        // the first back), so a burst of tries waits for the writer no longer than one count did.
        let source = Self.activationSourceCounter(userID, client: client)
        let counter = Self.activationCounter(userID)
        let used: Int64 = try store.atomically {
            if try store.value(source) >= policy.activationAttempts, let last = try store.lastIncrement(source),
               last.addingTimeInterval(policy.lockoutBase) <= now {
                try store.reset(source)
            }
            guard try store.increment(source, limit: policy.activationAttempts, now: now) != nil,
                  let used = try store.increment(counter, limit: policy.activationAttemptsPerUser, now: now) else {
                throw IdentityError.activationLocked
            }
            return used
        }
        let digest = activationDigest(userID: userID, code: code)
        guard try store.peek(purpose: Purpose.activation, digest: digest, now: now) != nil else {
            if used == policy.activationAttemptsPerUser {
                // Out of tries from every source together: void the outstanding code too.
                try store.revokeAll(purpose: Purpose.activation, subject: userID)
            }
            throw IdentityError.invalidActivationCode
        }
        // Hashed once the code is known to be right, and outside the transaction (it is slow).
        let passwordHash = try hasher.hash(password)
        let device = Device(id: newID(), userID: userID, name: name, publicKeyJWK: deviceKey.jwkJSON, keyThumbprint: thumbprint,
                            createdAt: now, lastUsedAt: now, passwordVerifiedAt: now, boundBy: .activation, boundFrom: client,
                            probationUntil: probationEnd(.activation, now: now))
        // One transaction: the code is never burned without the password set and the device
        // bound (a key already in use undoes it all), and of concurrent activations with one
        // code exactly one consumes it.
        let (session, token) = try store.atomically {
            guard try store.consume(purpose: Purpose.activation, digest: digest, now: now) != nil,
                  try store.changeUser(id: userID, .activate(passwordHash: passwordHash, at: now)) else {
                throw IdentityError.invalidActivationCode
            }
            do {
                try store.addDevice(device)
            } catch StoreError.duplicate {
                throw IdentityError.deviceKeyInUse
            }
            try store.reset(counter)
            try store.reset(source)
            try attempts.reset(userID)
            var details = ["device_id": device.id, "proof": "activation_code"]
            if let client { details["client"] = client }
            try audit?.record(.deviceRegistered, userID: userID, details: details)
            try signalBinding(device, now: now)
            return try openSession(userID: userID, deviceID: device.id, now: now)
        }
        return AuthenticationOutcome(status: .success, userID: userID, attemptsLeft: Int(policy.maximumAttempts), device: device,
                                     session: session, sessionToken: token)
    }
}
