/// Numeric options, checked the same way by every command.
extension ParsedArguments {
    /// `--name` as an integer in `range`; nil when the option is not given.
    func integer<T: FixedWidthInteger>(_ name: String, in range: ClosedRange<T>) throws -> T? {
        guard let text = value(name) else { return nil }
        guard let number = T(text), range.contains(number) else {
            throw UsageError("--\(name) must be \(integerExpectation(range)), got '\(text)'")
        }
        return number
    }
}

/// What an integer option takes, as its error says it.
func integerExpectation<T: FixedWidthInteger>(_ range: ClosedRange<T>) -> String {
    range.upperBound == T.max ? "an integer of at least \(range.lowerBound)" : "an integer in \(range.lowerBound)...\(range.upperBound)"
}
