import CustosAPI

extension CustosClient {
    /// Every answer's contract status passes here. 153 (attempts exhausted, the user is
    /// locked) ends the session whichever call met it, as the seed's SDK does: the token is
    /// forgotten (the server no longer honours it) and `onUserLoggedOff` fires with status
    /// 153, before the call returns. The user and device stay, so the app can log in again
    /// once the lock lifts. An answer that names another user than the session's (a login
    /// for someone else) leaves the session alone; the event still says who was locked.
    func answered(_ status: AnsweredStatus) {
        guard status.statusCode == StatusCode.attemptsExhausted else { return }
        let previous = state.withLock { state in
            let previous = state
            if status.userID == nil || state.userID == nil || status.userID == state.userID {
                state.sessionToken = nil
            }
            return previous
        }
        events.emit(.onUserLoggedOff, LogoffInfo(userID: status.userID ?? previous.userID ?? "",
                                                 statusCode: StatusCode.attemptsExhausted, error: nil))
    }
}
