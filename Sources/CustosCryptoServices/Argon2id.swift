import CArgon2
import CustosCore
import CustosCrypto

/// Argon2id password hashing (RFC 9106) through libargon2, producing PHC strings such as
/// `$argon2id$v=19$m=65536,t=3,p=1$<salt>$<hash>`.
///
/// Passwords are hashed as their UTF-8 bytes, without Unicode normalisation.
public struct Argon2id: PasswordHasher {
    /// Argon2 cost parameters.
    public struct Cost: Sendable, Equatable {
        /// Passes over memory (t).
        public var iterations: Int
        /// Memory in KiB (m); at least 8 × parallelism.
        public var memoryKiB: Int
        /// Lanes and threads (p).
        public var parallelism: Int

        /// Cost parameters; they are range-checked when used.
        public init(iterations: Int, memoryKiB: Int, parallelism: Int) {
            self.iterations = iterations
            self.memoryKiB = memoryKiB
            self.parallelism = parallelism
        }

        /// t=3, m=64 MiB, p=1 (about 160 ms per hash on the reference machine).
        public static let `default` = Cost(iterations: 3, memoryKiB: 65_536, parallelism: 1)
        /// t=1, m=64 KiB, p=1: cheap, for tests only.
        public static let testing = Cost(iterations: 1, memoryKiB: 64, parallelism: 1)

        /// The parameters as libargon2 takes them, after range checks.
        func validated() throws -> (t: UInt32, m: UInt32, p: UInt32) {
            guard iterations >= 1, iterations <= Int(UInt32.max) else {
                throw CryptoError.invalidCost("iterations must be at least 1")
            }
            guard parallelism >= 1, parallelism <= 0xFF_FFFF else {
                throw CryptoError.invalidCost("parallelism must be between 1 and 2^24-1")
            }
            guard memoryKiB >= 8 * parallelism, memoryKiB <= Int(UInt32.max) else {
                throw CryptoError.invalidCost("memory must be at least 8 KiB per lane")
            }
            return (UInt32(iterations), UInt32(memoryKiB), UInt32(parallelism))
        }
    }

    /// Salt length for new hashes (bytes).
    public static let saltByteCount = 16
    /// Tag length for new hashes (bytes).
    public static let hashByteCount = 32

    /// Cost used for new hashes. Verification uses the cost recorded in each encoded hash.
    public let cost: Cost
    private let random: any RandomSource

    /// A hasher with the given cost and salt source.
    public init(cost: Cost = .default, random: any RandomSource = SecureRandom()) {
        self.cost = cost
        self.random = random
    }

    /// Hashes `password` with a fresh 16-byte salt and returns the PHC string.
    /// - Throws: `CryptoError.invalidCost`, `.argon2Failure`.
    public func hash(_ password: String) throws -> String {
        let (t, m, p) = try cost.validated()
        var passwordBytes = Array(password.utf8)
        defer { OpenSSL.cleanse(&passwordBytes) }
        let salt = random.bytes(count: Self.saltByteCount)
        let length = argon2_encodedlen(t, m, p, UInt32(salt.count), UInt32(Self.hashByteCount), Argon2_id)
        var encoded = [CChar](repeating: 0, count: length)
        let status = passwordBytes.withUnsafeBytes { passwordBuffer in
            salt.withUnsafeBytes { saltBuffer in
                argon2id_hash_encoded(
                    t, m, p,
                    passwordBuffer.baseAddress, passwordBuffer.count,
                    saltBuffer.baseAddress, saltBuffer.count,
                    Self.hashByteCount, &encoded, encoded.count)
            }
        }
        guard status == ARGON2_OK.rawValue else { throw Self.failure(status) }
        let bytes = encoded.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Checks `password` against an encoded Argon2id hash (constant-time tag comparison).
    /// - Returns: false for a wrong password.
    /// - Throws: `CryptoError.malformedPasswordHash` if `encoded` is not a valid Argon2id
    ///   PHC string; `.argon2Failure` for resource errors.
    public func verify(_ password: String, encoded: String) throws -> Bool {
        guard encoded.hasPrefix("$argon2id$") else { throw CryptoError.malformedPasswordHash }
        var passwordBytes = Array(password.utf8)
        defer { OpenSSL.cleanse(&passwordBytes) }
        let status = passwordBytes.withUnsafeBytes { buffer in
            argon2id_verify(encoded, buffer.baseAddress, buffer.count)
        }
        switch status {
        case ARGON2_OK.rawValue:
            return true
        case ARGON2_VERIFY_MISMATCH.rawValue:
            return false
        case ARGON2_MEMORY_ALLOCATION_ERROR.rawValue, ARGON2_THREAD_FAIL.rawValue:
            throw Self.failure(status)
        default:
            throw CryptoError.malformedPasswordHash
        }
    }

    /// Whether `encoded` was made with a cost other than this hasher's, so the caller may
    /// rehash the password after a successful verification.
    /// - Throws: `CryptoError.malformedPasswordHash` if the parameters cannot be read.
    public func needsRehash(_ encoded: String) throws -> Bool {
        try Self.cost(of: encoded) != cost
    }

    /// Reads t, m and p from an Argon2id PHC string.
    /// - Throws: `CryptoError.malformedPasswordHash`.
    public static func cost(of encoded: String) throws -> Cost {
        let fields = encoded.split(separator: "$", omittingEmptySubsequences: false)
        // "", "argon2id", "v=19", "m=…,t=…,p=…", salt, hash
        guard fields.count == 6, fields[0].isEmpty, fields[1] == "argon2id", fields[2] == "v=19" else {
            throw CryptoError.malformedPasswordHash
        }
        var values: [Substring: Int] = [:]
        for pair in fields[3].split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let value = Int(parts[1]) else { throw CryptoError.malformedPasswordHash }
            values[parts[0]] = value
        }
        guard values.count == 3, let m = values["m"], let t = values["t"], let p = values["p"] else {
            throw CryptoError.malformedPasswordHash
        }
        return Cost(iterations: t, memoryKiB: m, parallelism: p)
    }

    /// Raw Argon2id (version 0x13) with optional secret and associated data, as in RFC 9106.
    /// - Parameters:
    ///   - salt: at least 8 bytes.
    ///   - outputByteCount: tag length, at least 4.
    /// - Throws: `CryptoError.invalidCost`, `.argon2Failure` (e.g. a salt shorter than 8 bytes).
    public static func deriveRaw(
        password: [UInt8],
        salt: [UInt8],
        secret: [UInt8] = [],
        associatedData: [UInt8] = [],
        cost: Cost,
        outputByteCount: Int = hashByteCount
    ) throws -> [UInt8] {
        let (t, m, p) = try cost.validated()
        guard outputByteCount >= 4, outputByteCount <= Int(UInt32.max) else {
            throw CryptoError.invalidOutputLength(outputByteCount)
        }
        for input in [password, salt, secret, associatedData] where input.count > Int(UInt32.max) {
            throw CryptoError.invalidCost("input longer than 2^32-1 bytes")
        }
        // argon2_context takes non-const pointers; work on copies and wipe them afterwards.
        var out = [UInt8](repeating: 0, count: outputByteCount)
        var pwd = password, saltCopy = salt, key = secret, ad = associatedData
        defer {
            OpenSSL.cleanse(&pwd)
            OpenSSL.cleanse(&key)
        }
        let status = out.withUnsafeMutableBufferPointer { outBuffer in
            pwd.withUnsafeMutableBufferPointer { pwdBuffer in
                saltCopy.withUnsafeMutableBufferPointer { saltBuffer in
                    key.withUnsafeMutableBufferPointer { keyBuffer in
                        ad.withUnsafeMutableBufferPointer { adBuffer in
                            var context = argon2_context(
                                out: outBuffer.baseAddress, outlen: UInt32(outBuffer.count),
                                pwd: pwdBuffer.baseAddress, pwdlen: UInt32(pwdBuffer.count),
                                salt: saltBuffer.baseAddress, saltlen: UInt32(saltBuffer.count),
                                secret: keyBuffer.baseAddress, secretlen: UInt32(keyBuffer.count),
                                ad: adBuffer.baseAddress, adlen: UInt32(adBuffer.count),
                                t_cost: t, m_cost: m, lanes: p, threads: p,
                                version: UInt32(ARGON2_VERSION_13.rawValue),
                                allocate_cbk: nil, free_cbk: nil,
                                flags: 0)  // ARGON2_DEFAULT_FLAGS (a UINT32_C macro, not imported)
                            return argon2_ctx(&context, Argon2_id)
                        }
                    }
                }
            }
        }
        guard status == ARGON2_OK.rawValue else { throw failure(status) }
        return out
    }

    private static func failure(_ code: Int32) -> CryptoError {
        let message = argon2_error_message(code).map { String(cString: $0) } ?? "unknown error"
        return .argon2Failure(code: code, message: message)
    }
}
