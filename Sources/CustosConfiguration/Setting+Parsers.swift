import CustosCore
import Foundation

extension Setting {
    /// `blink, turn_left`: known actions, each once, at least one.
    @Sendable static func livenessActionList(_ text: String) throws -> [LivenessAction] {
        var actions: [LivenessAction] = []
        for name in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            guard let action = LivenessAction(rawValue: name) else {
                throw Invalid(reason: "'\(name)' is not one of \(LivenessAction.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            if !actions.contains(action) { actions.append(action) }
        }
        guard !actions.isEmpty else { throw Invalid(reason: "name at least one action") }
        return actions
    }

    /// `MIN-MAX` seconds, or one number for both, within 0...10.
    @Sendable static func secondsRange(_ text: String) throws -> ClosedRange<Double> {
        let bounds = text.split(separator: "-", maxSplits: 1).map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard let low = bounds.first ?? nil, let high = bounds.count == 2 ? bounds[1] : Optional(low),
              low >= 0, high >= low, high <= 10 else {
            throw Invalid(reason: "'\(text)' is not MIN-MAX seconds with 0 <= MIN <= MAX <= 10 (or one number)")
        }
        return low...high
    }
}
