import CustosAPI

extension CustosClient {
    /// Every answer's contract status passes here. 153 (attempts exhausted, the user is
    /// locked) ends the session whichever call met it, as the seed's SDK does: the token is
    /// forgotten at once (the server no longer honours it) and `onUserLoggedOff` fires with
    /// status 153 right after the call's own event (see `loggingOffAfter`). The user and device
    /// stay, so the app can log in again once the lock lifts. An answer that names another
    /// user than the session's (a login for someone else) leaves the session alone; the event
    /// still says who was locked.
    func answered(_ status: AnsweredStatus) {
        guard status.statusCode == StatusCode.attemptsExhausted else { return }
        let previous = forgetSession(ifUser: status.userID)
        logOff(LogoffInfo(userID: status.userID ?? previous.userID ?? "", statusCode: StatusCode.attemptsExhausted, error: nil))
    }
}
