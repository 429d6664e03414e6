extension CustosClient {
    /// Runs `call` and emits `event` either way, as the seed's callbacks do: with the answer,
    /// or with the failure as a `CustosError` (non-zero `longErrorCode`), which is also what
    /// the call then throws. So an app that only listens to events hears of every outcome.
    /// A log-off the call's answer caused follows the event.
    func emitting<Answer: Sendable, Payload: Sendable>(
        _ event: CustosEvent<Payload>, _ payload: (CustosError?, Answer?) -> Payload, _ call: () async throws -> Answer
    ) async throws -> Answer {
        try await loggingOffAfter {
            let answer: Answer
            do {
                answer = try await call()
            } catch {
                let failure = CustosError(error)
                events.emit(event, payload(failure, nil))
                throw failure
            }
            events.emit(event, payload(nil, answer))
            return answer
        }
    }
}
