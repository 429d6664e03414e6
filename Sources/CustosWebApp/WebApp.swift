import CustosHTTP
import Foundation

/// The web app's files (HTML, JavaScript, CSS), read once at start from a directory and
/// served from memory, each with its type and an ETag, and `contract.js`, written from
/// CustosAPI (`WebContract`). The files are the build's copy of
/// `Sources/CustosWebApp/Web` (SwiftPM resources) unless `--web-root` names another directory.
public struct WebApp: Sendable {
    struct Asset: Sendable {
        let body: Data
        let contentType: String
        let etag: String
    }

    public enum LoadError: Error, CustomStringConvertible {
        case unreadable(String)
        case missingIndex(String)

        public var description: String {
            switch self {
            case .unreadable(let path): "the web app directory \(path) cannot be read"
            case .missingIndex(let path): "the web app directory \(path) holds no index.html"
            }
        }
    }

    static let contentTypes = [
        "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8",
        "svg": "image/svg+xml", "png": "image/png", "ico": "image/x-icon", "json": "application/json",
    ]

    /// The files by name (one directory, no sub-directories: a name is never a path).
    let assets: [String: Asset]
    public let root: URL

    public init(root: URL) throws {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: root.path) else { throw LoadError.unreadable(root.path) }
        var assets: [String: Asset] = [:]
        for name in names where Self.servable(name) {
            let ext = String(name[name.index(after: name.lastIndex(of: ".")!)...])
            guard let type = Self.contentTypes[ext], let body = FileManager.default.contents(atPath: root.appendingPathComponent(name).path) else { continue }
            assets[name] = Asset(body: body, contentType: type, etag: "\"\(Self.fingerprint(body))\"")
        }
        guard assets["index.html"] != nil else { throw LoadError.missingIndex(root.path) }
        let contract = Data(WebContract.javascript().utf8)
        assets["contract.js"] = Asset(body: contract, contentType: Self.contentTypes["js"]!, etag: "\"\(Self.fingerprint(contract))\"")
        self.assets = assets
        self.root = root
    }

    /// A file name the app may serve: letters, digits, `-`, `_`, one extension of a known type.
    static func servable(_ name: String) -> Bool {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex, contentTypes[String(name[name.index(after: dot)...])] != nil else {
            return false
        }
        return name[..<dot].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }

    /// The directory the build copied the app to, beside the executable, if it is there.
    public static func bundled() -> URL? {
        let executable = Bundle.main.executableURL?.resolvingSymlinksInPath().deletingLastPathComponent()
        for base in [executable, Bundle.main.bundleURL].compactMap({ $0 }) {
            let web = base.appendingPathComponent("Custos_CustosWebApp.resources/Web")
            if FileManager.default.fileExists(atPath: web.appendingPathComponent("index.html").path) { return web }
        }
        return nil
    }

    /// FNV-1a, 64 bits: changes with the content, so a browser's cached copy is revalidated cheaply.
    static func fingerprint(_ data: Data) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }

    /// Pages that are templates, served only by their endpoint once it checked the request:
    /// the sign-in page sends the browser to the query's `redirect_uri` on Cancel.
    static let templates: Set<String> = ["authorize.html"]

    /// A file's response: 304 when the browser's copy is current.
    public func response(_ name: String, request: Request) -> Response? {
        guard !Self.templates.contains(name), let asset = assets[name] else { return nil }
        var response = request.headers["If-None-Match"] == asset.etag ? Response(status: 304) : Response(status: 200, body: asset.body)
        response.headers.set("Content-Type", asset.contentType)
        response.headers.set("ETag", asset.etag)
        // Revalidated every time: no file name changes with its content, so none may be cached blindly.
        response.headers.set("Cache-Control", "no-cache")
        Self.secure(&response)
        return response
    }

    /// The sign-in page of the authorization endpoint, with the client's name and the issuer.
    /// `loginHint`: the user the request is for (its `login_hint`, or the subject of its
    /// `id_token_hint`), whose accounts alone the page offers; empty: any. `postingTo`: the
    /// origin the page's answer is posted to (`response_mode=form_post`), which its policy lets
    /// forms reach besides this server.
    public func authorizePage(clientName: String, issuer: String, scope: String, loginHint: String? = nil,
                              postingTo formOrigin: String? = nil) -> Response? {
        guard let page = assets["authorize.html"] else { return nil }
        // One pass over the template, so a value that holds a placeholder's text stays text.
        let values = ["client_name": clientName, "issuer": issuer, "scope": scope, "login_hint": loginHint ?? ""]
        var html = ""
        var rest = Substring(String(decoding: page.body, as: UTF8.self))
        while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
            html += rest[..<open.lowerBound]
            let name = String(rest[open.upperBound..<close.lowerBound])
            html += values[name].map(HTMLText.escape) ?? String(rest[open.lowerBound..<close.upperBound])
            rest = rest[close.upperBound...]
        }
        html += rest
        var response = Response.text(html, contentType: page.contentType)
        response.headers.set("Cache-Control", "no-store")
        Self.secure(&response)
        if let formOrigin {
            response.headers.set("Content-Security-Policy",
                                 Self.contentSecurityPolicy.replacingOccurrences(of: "form-action 'self'", with: "form-action 'self' \(formOrigin)"))
        }
        return response
    }

    /// The pages' policy: scripts and styles from this origin only (no inline code), the camera
    /// for this origin only, never framed, no referrer.
    static let contentSecurityPolicy = [
        "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data: blob:", "media-src 'self' blob: mediastream:",
        "connect-src 'self'", "form-action 'self'", "base-uri 'none'", "frame-ancestors 'none'",
    ].joined(separator: "; ")

    static func secure(_ response: inout Response) {
        response.headers.set("Content-Security-Policy", contentSecurityPolicy)
        response.headers.set("X-Content-Type-Options", "nosniff")
        response.headers.set("X-Frame-Options", "DENY")
        response.headers.set("Referrer-Policy", "no-referrer")
        response.headers.set("Cross-Origin-Opener-Policy", "same-origin")
        response.headers.set("Cross-Origin-Resource-Policy", "same-origin")
        response.headers.set("Permissions-Policy", "camera=(self), microphone=(), geolocation=(), publickey-credentials-create=(self), publickey-credentials-get=(self)")
    }
}

/// Text placed in HTML, in element content or a quoted attribute, that cannot be read as markup.
public enum HTMLText {
    public static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "'", with: "&#39;")
    }
}
