import CustosAPI
@testable import CustosCore
import CustosFakes
import Foundation
import Testing

/// Requests racing on one transaction: one verdict, and attempts that add up.
@Suite struct IDVRaceTests {
    @Test func framesRacingFramesGiveOneVerdict() throws {
        let harness = try ServiceHarness()
        try harness.enrolled()
        let challenge = try harness.challenged()
        let results = runConcurrently(6) { i in try harness.submit(challenge, person: "mallory", take: "race-\(i)") }
        let verdicts = results.compactMap { try? $0.get() }
        #expect(verdicts.count == 1)
        #expect(verdicts.first?.result.decision == .notMatched)
        for case .failure(let error) in results {
            let refused = [IDVError.challengeRejected, .transactionState(.judging), .transactionState(.completed)]
            #expect(refused.contains(error as? IDVError ?? .transactionNotFound), "\(error)")
        }
        #expect(try harness.identity.attemptsLeft(userID: "alice", factor: .biometric) == 4)
        #expect(try harness.idv.transaction(id: challenge.transactionID).result == verdicts.first?.result)
    }

    /// Whichever comes first, the transaction ends once and exactly one attempt is used.
    @Test(arguments: 0..<10) func framesRacingCancelEndOnce(_ round: Int) throws {
        let harness = try ServiceHarness()
        try harness.enrolled()
        let challenge = try harness.challenged()
        let idv = harness.idv
        let results = runConcurrently(2) { i -> IDVResult in
            i == 0 ? try harness.submit(challenge, person: "mallory").result
                : try idv.cancel(userID: "alice", transactionID: challenge.transactionID).result
        }
        let ended = results.compactMap { try? $0.get() }
        #expect(ended.count == 1, "\(results)")
        let final = try harness.idv.transaction(id: challenge.transactionID)
        #expect(final.result == ended.first)
        #expect(final.state == (ended.first?.status == .userCancelledSelfie ? .cancelled : .completed))
        #expect(try harness.identity.attemptsLeft(userID: "alice", factor: .biometric) == 4)
        // The loser is refused for the state the winner left the transaction in.
        if ended.first?.status == .userCancelledSelfie {
            #expect(throws: IDVError.transactionState(.cancelled)) { try results[0].get() }
        } else {
            let refused = #expect(throws: IDVError.self) { try results[1].get() }
            #expect(refused == .transactionState(.judging) || refused == .transactionState(.completed), "\(String(describing: refused))")
        }
    }
}
