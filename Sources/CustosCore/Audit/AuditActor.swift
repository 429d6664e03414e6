/// Who did what an audit event records, in its `actor` detail: the id of the API key that
/// called, or `local` for an operator working on the data directory itself (`custos admin
/// apikey create --data-dir`). `custos admin audit list --actor` filters on it.
public enum AuditActor {
    /// The operator at the database, with no API key.
    public static let local = "local"
    /// The server's own policy (a device unbound when the proof it rested on ended or its tries
    /// ran out).
    public static let policy = "policy"
    /// The detail that names the actor.
    public static let detail = "actor"
}
