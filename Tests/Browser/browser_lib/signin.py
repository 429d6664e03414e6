"""Signing in: passkeys and the authorization endpoint of an OpenID client."""
import http.server
import secrets
import threading
import urllib.parse

import requests
from selenium.webdriver.support.ui import WebDriverWait

from browser_lib.driver import PASSWORD


class SignInFlows:
    """Flows of `Suite` (browser_lib.driver), mixed into the suite browser_flows.py runs."""

    def oidc_client(self, name="Example Shop"):
        """A public client that may ask for openid and email (not profile)."""
        answer = requests.post(self.base + "/v1/admin/oidc/clients", headers={"Authorization": f"Bearer {self.admin_key}"}, timeout=10,
                               json={"name": name, "client_type": "public", "redirect_uris": [self.base + "/callback"], "scopes": ["openid", "email"]})
        self.check(answer.status_code == 201, "the OIDC client created (201)", f"{answer.status_code} {answer.text}")
        return answer.json()["client_id"]

    def sign_in_at_authorization_endpoint(self, choice):
        """A relying party's browser redirect to the authorization endpoint, answered in the page;
        authlib (an outside OAuth client) makes the request and exchanges the code with PKCE."""
        from authlib.integrations.requests_client import OAuth2Session
        from joserfc import jwt
        from joserfc.jwk import KeySet

        client_id = self.oidc_client()
        # A stack's default scopes: what the client may not have (profile) is left out, and not listed to the user.
        session = OAuth2Session(client_id, redirect_uri=self.base + "/callback", scope="openid profile email", code_challenge_method="S256")
        verifier = secrets.token_urlsafe(48)
        nonce = secrets.token_urlsafe(16)
        url, state = session.create_authorization_url(self.base + "/oauth2/authorize", code_verifier=verifier, nonce=nonce)
        page = requests.get(url, timeout=10, allow_redirects=False)
        self.check(page.status_code == 200 and page.headers.get("Cache-Control") == "no-store",
                   "the authorization page (200) with Cache-Control: no-store",
                   f"{page.status_code}, Cache-Control {page.headers.get('Cache-Control')}")
        self.check_page_headers("/oauth2/authorize", page)
        self.check('data-client-name="Example Shop"' in page.text, "the page to name the client Example Shop", page.text)
        # A request for another user offers none of this browser's accounts; one for this user offers them.
        self.driver.get(url + "&login_hint=someone-else")
        other = self.text("#authorize-other-user")
        self.check("someone-else" in other and not self.driver.find_elements("css selector", "#authorize-choices button"),
                   "a request for another user offers no account of this browser", other)
        self.driver.get(url + "&login_hint=" + urllib.parse.quote(self.user))
        self.find("#consent")
        shared = [item.text for item in self.find("#consent").find_elements("css selector", "li")]
        self.check(shared == ["your user id", "your email address"], "the consent to list only the scopes granted (openid email)", shared)
        title = self.text("#screen-title")
        self.check("Example Shop" in title, "the client's name in the title", title)
        self.click(choice)
        WebDriverWait(self.driver, 30).until(lambda driver: driver.current_url.startswith(self.base + "/callback"))
        callback = self.driver.current_url
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(callback).query))
        self.check(query.get("state") == state and query.get("iss") == self.base, f"the callback with state {state} and iss {self.base}",
                   query)
        token = session.fetch_token(self.base + "/oauth2/token", authorization_response=callback, code_verifier=verifier)
        self.check(token.get("scope") == "openid email", "the token answer to name the scopes granted (openid email)", token.get("scope"))
        keys = KeySet.import_key_set(requests.get(self.base + "/.well-known/jwks.json", timeout=10).json())
        claims = jwt.decode(token["id_token"], keys).claims
        self.check(claims["sub"] == self.user and claims["aud"] in (client_id, [client_id]) and claims["nonce"] == nonce,
                   f"an ID token for {self.user}, to {client_id}, with the nonce sent", claims)
        self.check(claims["iss"] == self.base, f"an ID token from {self.base}", claims)
        # The code is single use.
        again = requests.post(self.base + "/oauth2/token", timeout=10, data={
            "grant_type": "authorization_code", "code": query["code"], "redirect_uri": self.base + "/callback",
            "client_id": client_id, "code_verifier": verifier})
        self.check(again.status_code == 400 and again.json()["error"] == "invalid_grant", "the used code refused (400 invalid_grant)",
                   f"{again.status_code} {again.text}")

    def passkey_register_and_sign_in(self):
        self.account(self.video("still"))
        self.register_passkey()
        self.sign_in_at_authorization_endpoint(f'#authorize-choices button.signin-passkey[data-user="{self.user}"]')

    def passkey_app_sign_in(self):
        """The passkey signs in to the app itself, no account picked: the authenticator offers it."""
        self.account(self.video("still"))
        self.register_passkey()
        self.open("login")
        self.type("#passkey-login-password", PASSWORD)
        self.click("#login-passkey")
        session = self.text("#dashboard-session")
        self.check(self.user in session and "pk_" in session, f"a session of {self.user} through a pk_ device", session)

    def device_sign_in_at_authorization_endpoint(self):
        self.account(self.video("still"))
        self.sign_in_at_authorization_endpoint(f'#authorize-choices button.signin-device[data-user="{self.user}"]')

    def form_post_sign_in(self):
        """response_mode=form_post: the browser posts the code to the client's redirect URI (a
        receiver on a loopback port standing in for the relying party), which authlib exchanges."""
        from authlib.integrations.requests_client import OAuth2Session

        self.account(self.video("still"))
        received = []

        class Receiver(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length", "0"))
                received.append((self.headers.get("Content-Type", ""), urllib.parse.parse_qs(self.rfile.read(length).decode())))
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.end_headers()
                self.wfile.write(b"<!doctype html><title>received</title><p id=received>received</p>")

            def log_message(self, *args):
                pass

        # Threaded: a connection the browser opens ahead and leaves idle must not hold up the post.
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            redirect = f"http://127.0.0.1:{server.server_port}/cb"
            answer = requests.post(self.base + "/v1/admin/oidc/clients", headers={"Authorization": f"Bearer {self.admin_key}"}, timeout=10,
                                   json={"name": "Form shop", "client_type": "public", "redirect_uris": [redirect]})
            self.check(answer.status_code == 201, "the OIDC client created (201)", answer.text)
            client_id = answer.json()["client_id"]
            session = OAuth2Session(client_id, redirect_uri=redirect, scope="openid", code_challenge_method="S256")
            verifier = secrets.token_urlsafe(48)
            url, state = session.create_authorization_url(self.base + "/oauth2/authorize", code_verifier=verifier, response_mode="form_post")
            self.driver.get(url)
            self.click(f'#authorize-choices button.signin-device[data-user="{self.user}"]')
            WebDriverWait(self.driver, 30).until(lambda driver: received)
            content_type, fields = received[0]
            self.check(content_type.startswith("application/x-www-form-urlencoded") and fields.get("state") == [state]
                       and fields.get("iss") == [self.base] and len(fields.get("code", [])) == 1,
                       "the code, state and iss posted as a form to the redirect URI", (content_type, fields))
            token = session.fetch_token(self.base + "/oauth2/token", code=fields["code"][0], code_verifier=verifier)
            self.check("id_token" in token, "the posted code exchanged for tokens", token)
            # A refused request goes back the same way: posted, with the error and the state.
            received.clear()
            bad, bad_state = session.create_authorization_url(self.base + "/oauth2/authorize", code_verifier=verifier,
                                                              response_mode="form_post", prompt="none")
            self.driver.get(bad)
            WebDriverWait(self.driver, 30).until(lambda driver: received)
            self.check(received[0][1].get("error") == ["login_required"] and received[0][1].get("state") == [bad_state],
                       "a refusal posted to the redirect URI with its state", received[0])
        finally:
            server.shutdown()
