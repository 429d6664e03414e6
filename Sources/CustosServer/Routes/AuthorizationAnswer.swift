import CustosCore
import CustosHTTP
import CustosWebApp
import Foundation

/// How the authorization endpoint's answer goes back to the client: a 302 to the redirect URI
/// with the parameters in its query, or for `response_mode=form_post` (OAuth 2.0 Form Post
/// Response Mode) a page whose form the browser posts to the redirect URI, at once with
/// `formpost.js`, or by the user's click without scripts.
enum AuthorizationAnswer {
    static func send(to redirectURI: String, _ mode: AuthorizationRequest.ResponseMode, _ parameters: [String: String?]) -> Response {
        switch mode {
        case .query:
            var response = Response(status: 302)
            response.headers.set("Location", AuthorizationRedirect.location(redirectURI, parameters))
            return OpenIDRoutes.noStore(response)
        case .formPost:
            let fields = parameters.compactMapValues { $0 }.sorted { $0.key < $1.key }.map { name, value in
                #"<input type="hidden" name="\#(HTMLText.escape(name))" value="\#(HTMLText.escape(value))">"#
            }
            let html = """
                <!doctype html>
                <html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">
                <title>Returning to the app – Custos</title><script src="/app/formpost.js" defer></script></head>
                <body><form id="form-post" method="post" action="\(HTMLText.escape(redirectURI))">\(fields.joined())
                <noscript><p>Continue to send the answer back to the app.</p></noscript>
                <button type="submit">Continue</button></form></body></html>
                """
            var response = Response.text(html, contentType: "text/html; charset=utf-8")
            response.headers.set("Content-Security-Policy", policy(postingTo: redirectURI))
            response.headers.set("X-Content-Type-Options", "nosniff")
            response.headers.set("X-Frame-Options", "DENY")
            response.headers.set("Referrer-Policy", "no-referrer")
            return OpenIDRoutes.noStore(response)
        }
    }

    /// The form page's policy: its one script from this server, its forms posted to
    /// `redirectURI`'s origin alone (form_post is accepted only for a redirect URI whose origin
    /// `AuthorizationRequest.formOrigin` can name), never framed.
    static func policy(postingTo redirectURI: String) -> String {
        var directives = ["default-src 'none'", "script-src 'self'", "base-uri 'none'", "frame-ancestors 'none'"]
        if let origin = AuthorizationRequest.formOrigin(redirectURI) { directives.append("form-action 'self' \(origin)") }
        return directives.joined(separator: "; ")
    }
}
