/// One-way password hashing with a self-describing encoded form (a PHC string).
public protocol PasswordHasher: Sendable {
    /// Hashes `password` with a fresh salt; returns the encoded hash.
    func hash(_ password: String) throws -> String
    /// Verifies `password` against an encoded hash in constant time with respect to the secret.
    /// Returns false for a wrong password; throws only for a malformed encoded hash.
    func verify(_ password: String, encoded: String) throws -> Bool
}
