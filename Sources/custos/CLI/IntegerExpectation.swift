/// What an integer option takes, as its error says it ("--limit must be an integer in 1...500").
func integerExpectation<T: FixedWidthInteger>(_ range: ClosedRange<T>) -> String {
    range.upperBound == T.max ? "an integer of at least \(range.lowerBound)" : "an integer in \(range.lowerBound)...\(range.upperBound)"
}
