import Foundation

/// Frame fingerprints at rest: sealed under the active template key like templates, bound to
/// the user and to their purpose (a memory cannot be passed off as a template or moved).
extension TemplateVault {
    /// The associated data a frame memory of `userID` is sealed with.
    public static func frameMemoryOwner(_ userID: String) -> Data { Data(("frames|" + userID).utf8) }

    /// Seals one take's fingerprints (nil: a frame without one) as the user's frame memory.
    public func sealFrames(_ fingerprints: [FrameFingerprint?], id: String, userID: String, now: Date,
                    expiresAt: Date) throws -> SealedFrameMemory {
        let keyID = try activeKeyID(now: now)
        var plain = Data()
        plain.reserveCapacity(fingerprints.count * (1 + 4 * FrameFingerprint.length))
        for fingerprint in fingerprints {
            guard let fingerprint else {
                plain.append(0)
                continue
            }
            plain.append(1)
            for value in fingerprint.values { withUnsafeBytes(of: value.bitPattern.littleEndian) { plain.append(contentsOf: $0) } }
        }
        let sealed = try cipher.seal(plain, keyID: keyID, associatedData: Self.frameMemoryOwner(userID))
        return SealedFrameMemory(id: id, userID: userID, keyID: keyID, ciphertext: sealed, createdAt: now, expiresAt: expiresAt)
    }

    /// Throws when the memory was altered, moved, or does not parse.
    func openFrames(_ memory: SealedFrameMemory) throws -> [FrameFingerprint?] {
        let plain = [UInt8](try cipher.open(memory.ciphertext, keyID: memory.keyID, associatedData: Self.frameMemoryOwner(memory.userID)))
        var fingerprints: [FrameFingerprint?] = []
        var offset = 0
        let size = 4 * FrameFingerprint.length
        while offset < plain.count {
            let present = plain[offset]
            offset += 1
            guard present == 1 else {
                fingerprints.append(nil)
                continue
            }
            guard offset + size <= plain.count else { throw StoreError.failure("frame memory \(memory.id) is truncated") }
            var values: [Float] = []
            values.reserveCapacity(FrameFingerprint.length)
            for index in 0..<FrameFingerprint.length {
                let start = offset + 4 * index
                let bits = UInt32(plain[start]) | UInt32(plain[start + 1]) << 8 | UInt32(plain[start + 2]) << 16 | UInt32(plain[start + 3]) << 24
                values.append(Float(bitPattern: bits))
            }
            offset += size
            guard let fingerprint = FrameFingerprint(values: values) else { throw StoreError.failure("frame memory \(memory.id) is corrupt") }
            fingerprints.append(fingerprint)
        }
        return fingerprints
    }
}
