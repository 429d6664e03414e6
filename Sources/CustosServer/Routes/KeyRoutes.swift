import CustosAPI
import CustosCore
import CustosHTTP
import Foundation

/// `GET /.well-known/jwks.json`: the public keys of the signing key ring, for anyone who
/// verifies what this server signed (IDV verdicts), offline.
enum KeyRoutes {
    static func register(on routes: inout EndpointRouter, _ groups: AccessGroups, signer: (any TokenSigner)?, clock: any Clock) {
        routes.respond(Endpoints.jwks, groups.anyone) { _, _ in
            guard let signer else { throw HTTPError(status: 404, code: "not_found", message: "This server signs nothing.") }
            var response = Response.json(raw: try signer.publicKeySet(now: clock.now()))
            // Verifiers may cache the set for a minute: new keys are published at least that long
            // before they sign (`rotate-signing --publish-for`, 60 s by default).
            response.headers.set("Cache-Control", "public, max-age=60")
            return response
        }
    }
}
