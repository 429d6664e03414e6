import COpenSSL

/// Small internal helpers around the OpenSSL C API (`cleanse` is the package's: the server's
/// key code zeroes its secrets with it too).
package enum OpenSSL {
    /// Drains OpenSSL's thread-local error queue into one line of text.
    static func errorDetail() -> String {
        var messages: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
            messages.append(String(decoding: bytes, as: UTF8.self))
        }
        return messages.isEmpty ? "no detail" : messages.joined(separator: "; ")
    }

    /// An error for a failed OpenSSL call, with the queued detail.
    static func failure(_ operation: String) -> CryptoError {
        .openSSLFailure(operation: operation, detail: errorDetail())
    }

    /// Overwrites `bytes` with zeros in a way the optimiser keeps.
    package static func cleanse(_ bytes: inout [UInt8]) {
        let count = bytes.count
        bytes.withUnsafeMutableBytes { raw in
            if let base = raw.baseAddress { OPENSSL_cleanse(base, count) }
        }
    }
}

/// A C string with static storage, for OpenSSL APIs (OSSL_PARAM, OSSL_PARAM_BLD)
/// that keep the pointer they are given beyond the call.
struct StaticCString: Sendable {
    private let literal: StaticString

    init(_ literal: StaticString) {
        precondition(literal.hasPointerRepresentation, "StaticCString needs a string literal")
        self.literal = literal
    }

    /// The NUL-terminated bytes, valid for the life of the program.
    var pointer: UnsafePointer<CChar> {
        UnsafeRawPointer(literal.utf8Start).assumingMemoryBound(to: CChar.self)
    }

    static let group = StaticCString("group")
    static let publicKey = StaticCString("pub")
    static let privateKey = StaticCString("priv")
    static let prime256v1 = StaticCString("prime256v1")
    static let ec = StaticCString("EC")
}

extension Array where Element == UInt8 {
    /// Calls `body` with a pointer that is never nil (a one-byte dummy for an empty array),
    /// for C APIs that reject NULL even when the length is zero.
    func withNonNullBytes<R>(_ body: (UnsafePointer<UInt8>, Int) throws -> R) rethrows -> R {
        if isEmpty {
            var dummy: UInt8 = 0
            return try withUnsafePointer(to: &dummy) { try body($0, 0) }
        }
        return try withUnsafeBufferPointer { buffer in
            // A non-empty array always has storage.
            guard let base = buffer.baseAddress else { preconditionFailure("non-empty array without storage") }
            return try body(base, buffer.count)
        }
    }
}
