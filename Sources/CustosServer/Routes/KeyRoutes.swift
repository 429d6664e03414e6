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
            // Verifiers may cache the set this long: a rotated key is published for longer than
            // that and every node's reread of the ring before it signs (`KeyPublication.minimum`).
            response.headers.set("Cache-Control", "public, max-age=\(Int(KeyPublication.jwksMaxAge))")
            return response
        }
    }
}
