import CustosConfiguration
import CustosCore
import CustosHTTP
import CustosServer
import CustosStore

extension RuntimeServices {
    /// Starts the periodic sweeps a running server needs: spent tokens, remembered takes,
    /// document images past retention, attempts held by tries that died, stale lockout counters, expired sessions and IDV
    /// transactions, ended rate-limit windows. Stop it before closing `store`.
    public func startHousekeeping(store: SQLStore, configuration: ServerConfiguration, rateLimiter: RateLimiter?,
                                  logger: Logger) -> Housekeeping {
        var sweeps: [Housekeeping.Sweep] = [
            .tokens(store), .frameMemories(store), .documents(store), .counterLeases(store),
            .counters(store, prefix: LoginThrottle.keyPrefix, maximumAge: configuration.identity.lockoutBase),
            .counters(store, prefix: IdentityService.activationCounterPrefix, maximumAge: configuration.identity.activationCodeLifetime),
            .counters(store, prefix: IdentityService.passwordRegistrationCounterPrefix, maximumAge: configuration.identity.lockoutCap),
            .counters(store, prefix: IdentityService.unconfirmedFaceTriesPrefix, maximumAge: configuration.identity.lockoutCap),
            .counters(store, prefix: IdentityService.templateRefusalsPrefix, maximumAge: configuration.identity.sessionLifetime),
            .init("expired_sessions_purged") { [identity] _ in try identity.purgeExpiredSessions() },
            .init("expired_notifications_closed") { [notifications] _ in try notifications.expireOverdue() },
            .init("old_notifications_purged") { [notifications] _ in try notifications.purgeOld() },
            .init("ended_oidc_records_purged") { [oidc] _ in try oidc.purgeEnded() },
            .init("exhausted_webhooks_failed") { [notifications] now in
                try store.failExhaustedWebhooks(now: now, maximumAttempts: notifications.policy.webhookMaximumAttempts)
            },
        ]
        if let rateLimiter {
            sweeps.append(.init("rate_limit_windows_purged") { _ in try rateLimiter.purgeEndedWindows() })
        }
        if let idv {
            sweeps.append(.init("expired_idv_transactions_closed") { _ in try idv.closeExpiredTransactions() })
        }
        return Housekeeping(sweeps: sweeps, clock: clock, logger: logger)
    }
}
