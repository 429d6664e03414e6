import CustosSDK
import Testing

/// Expects `call` to fail with the error `code` (the server's envelope code, or the SDK's own):
/// a transport failure, a 500 or another refusal does not pass for it.
func expectError(_ code: String, sourceLocation: SourceLocation = #_sourceLocation, _ call: () async throws -> Any) async {
    do {
        _ = try await call()
        Issue.record("expected the error \(code); the call succeeded", sourceLocation: sourceLocation)
    } catch let error as CustosError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected the error \(code); got \(error)", sourceLocation: sourceLocation)
    }
}

/// The code of the error `call` throws (a `CustosError`'s wire code), nil when it succeeds.
func errorCode(_ call: () async throws -> Any) async -> String? {
    do {
        _ = try await call()
        return nil
    } catch let error as CustosError {
        return error.code
    } catch {
        return "\(error)"
    }
}
