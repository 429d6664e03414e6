/// Numeric options, checked the same way by every command.
extension ParsedArguments {
    /// `--name` as an integer in `range`; nil when the option is not given.
    func integer<T: FixedWidthInteger>(_ name: String, in range: ClosedRange<T>) throws -> T? {
        guard let text = value(name) else { return nil }
        guard let number = T(text), range.contains(number) else {
            let expected = range.upperBound == T.max ? "an integer of at least \(range.lowerBound)"
                                                     : "an integer in \(range.lowerBound)...\(range.upperBound)"
            throw UsageError("--\(name) must be \(expected), got '\(text)'")
        }
        return number
    }

    /// `--name` as a frame rate in (0, 240] frames per second; nil when not given.
    func framesPerSecond(_ name: String) throws -> Double? {
        guard let text = value(name) else { return nil }
        guard let rate = Double(text), rate > 0, rate <= 240 else {
            throw UsageError("--\(name) must be a number in (0, 240], got '\(text)'")
        }
        return rate
    }
}
