import CCurl
import Foundation

/// POSTs a webhook with libcurl: redirects never followed, only http and https, the connection
/// made to the addresses the callback was checked at, and connect and total time limits. A
/// blocking call on the caller's thread (the dispatcher runs deliveries on its own threads).
///
/// libcurl rather than URLSession: on Linux, Foundation's URLSession traps (a fatal error that
/// ends the process) when a redirect decision arrives after its task timed out — something a
/// slow or hostile receiver can cause — and it cannot pin the addresses it connects to.
struct CurlPoster {
    let connectTimeout: TimeInterval
    let totalTimeout: TimeInterval

    /// libcurl's one-time global set-up, before any thread uses it.
    private static let initialised: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    /// The answer's status, or why there was none.
    func post(_ url: String, pinned callback: CallbackURLPolicy.CheckedCallback, headers: [(String, String)], body: Data) -> (Int?, String?) {
        guard !body.isEmpty else { return (nil, "empty body") }
        guard Self.initialised, let handle = curl_easy_init() else { return (nil, "libcurl could not start") }
        defer { curl_easy_cleanup(handle) }
        var headerList: UnsafeMutablePointer<curl_slist>?
        for (name, value) in headers + [("Expect", "")] { headerList = curl_slist_append(headerList, "\(name): \(value)") }
        defer { curl_slist_free_all(headerList) }
        // A host name is pinned to the addresses it was checked at. An address literal names
        // itself (nothing to resolve, nothing to re-point), and curl's resolve list cannot hold
        // an IPv6 one ("Malformed option"): it is left out.
        let resolve = callback.isAddressLiteral
            ? nil : curl_slist_append(nil, "\(callback.host):\(callback.port):\(callback.addresses.joined(separator: ","))")
        defer { curl_slist_free_all(resolve) }
        let failure: CURLcode = body.withUnsafeBytes { bytes in
            let settings: [CURLcode] = [
                custos_curl_set_string(handle, CURLOPT_URL, url),
                custos_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 0),
                // No proxy from the environment (http_proxy, ALL_PROXY…): the checked addresses are
                // the ones connected to, or the checks mean nothing.
                custos_curl_set_string(handle, CURLOPT_PROXY, ""),
                custos_curl_set_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"),
                custos_curl_set_long(handle, CURLOPT_NOSIGNAL, 1),
                custos_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Int(connectTimeout * 1000)),
                custos_curl_set_long(handle, CURLOPT_TIMEOUT_MS, Int(totalTimeout * 1000)),
                resolve.map { custos_curl_set_list(handle, CURLOPT_RESOLVE, $0) } ?? CURLE_OK,
                custos_curl_set_list(handle, CURLOPT_HTTPHEADER, headerList),
                custos_curl_set_string(handle, CURLOPT_USERAGENT, "Custos-Webhook/1"),
                custos_curl_set_body(handle, bytes.baseAddress, bytes.count),
                custos_curl_discard_body(handle),
            ]
            if let failed = settings.first(where: { $0 != CURLE_OK }) { return failed }
            return curl_easy_perform(handle)
        }
        guard failure == CURLE_OK else {
            return (nil, String(cString: curl_easy_strerror(failure)))
        }
        var status = 0
        guard custos_curl_response_code(handle, &status) == CURLE_OK, status > 0 else { return (nil, "no answer") }
        return (status, (200..<300).contains(status) ? nil : "HTTP \(status)")
    }
}
