"""Checking the ledger against the server: every acknowledged write read back, what must still be
usable, and the webhook outbox."""
import json
import secrets
import time

import jwt

from .client import Answer, Api, DeviceKey, Doubt, signature_valid
from .ledger import Grant, Ledger, Notification, Session, User
from .load import Context, log_in


# MARK: Checking the ledger against the server


class Checker:
    """Reads back every acknowledged write. Only while the load is paused: the ledger is then exact."""

    def __init__(self, context: Context, ledger: Ledger):
        self.context = context
        self.ledger = ledger
        self.api = Api(context.url, context.timeout)
        self.jwks = None

    def rp(self, path: str, route: str) -> Answer:
        return self.api.call("GET", path, route, token=self.context.rp_key)

    def lost_writes(self) -> list:
        """What the server no longer holds of what it acknowledged (read-only)."""
        self.jwks = jwt.PyJWKSet.from_dict(self.api.call("GET", "/.well-known/jwks.json", expect=200).body)
        lost = []
        for user in list(self.ledger.users):
            lost += self.user_lost(user)
        for session in list(self.ledger.sessions):
            lost += self.session_lost(session)
        for notification in list(self.ledger.notifications):
            lost += self.notification_lost(notification)
        for grant in list(self.ledger.grants):
            lost += self.grant_lost(grant)
        return lost

    def user_lost(self, user: User) -> list:
        shown = self.rp(f"/v1/users/{user.user_id}", "/v1/users/{id}")
        if shown.status != 200:
            return [f"user {user.user_id}: GET answered {shown.status} {shown.error_code}"]
        status = shown.body["status"]
        if user.state == "active":
            if status != "active":
                return [f"user {user.user_id}: activated (acknowledged) but {status}"]
            devices = self.rp(f"/v1/users/{user.user_id}/devices", "/v1/users/{id}/devices")
            listed = {device["device_id"]: device for device in (devices.body or {}).get("devices", [])}
            device = listed.get(user.device_id)
            if device is None or device.get("revoked_at"):
                return [f"user {user.user_id}: device {user.device_id} {'revoked' if device else 'missing'}"]
            return []
        allowed = ("pending_activation", "active") if user.activation_in_doubt else ("pending_activation",)
        return [] if status in allowed else [f"user {user.user_id}: created, not activated, but {status}"]

    def session_lost(self, session: Session) -> list:
        if session.state == "end_in_doubt":
            return []
        listed = self.api.call("GET", "/v1/sessions", token=session.token)
        if session.state == "live" and listed.status != 200:
            return [f"session of {session.user_id}: acknowledged, now {listed.status} {listed.error_code}"]
        if session.state == "ended" and listed.status != 401:
            return [f"session of {session.user_id}: logged out (acknowledged), now {listed.status}"]
        return []

    def notification_lost(self, notification: Notification) -> list:
        result = self.rp(f"/v1/notifications/{notification.uuid}/result", "/v1/notifications/{id}/result")
        name = f"notification {notification.uuid}"
        if result.status != 200:
            return [f"{name}: GET result answered {result.status} {result.error_code}"]
        status = result.body["status"]
        if notification.state == "pending":
            return [] if status == "pending" else [f"{name}: never answered, yet {status}"]
        if notification.state == "answer_in_doubt" and status == "pending":
            return []
        if status != "answered":
            return [f"{name}: answered (acknowledged) but {status}"]
        chosen = (result.body.get("action"), result.body.get("auth_level"))
        if notification.state == "answered" and chosen != (notification.action, notification.level):
            return [f"{name}: answered {notification.action} at level {notification.level}, now {result.body.get('action')} at "
                    f"{result.body.get('auth_level')}"]
        return self.signed_result_wrong(notification, result.body)

    def signed_result_wrong(self, notification: Notification, result: dict) -> list:
        token = result.get("signed_result")
        name = f"notification {notification.uuid}"
        if not token:
            return [f"{name}: answered without a signed result"]
        try:
            key = self.jwks[jwt.get_unverified_header(token)["kid"]]
            claims = jwt.decode(token, key.key, algorithms=["ES256"], audience=self.context.rp_key_id, issuer=self.context.url)
        except (jwt.PyJWTError, KeyError) as error:
            return [f"{name}: signed result refused: {type(error).__name__}: {error}"]
        if (claims.get("notification_uuid"), claims.get("status"), claims.get("action"), claims.get("sub")) != \
                (notification.uuid, "answered", result.get("action"), notification.user.user_id):
            return [f"{name}: the signed result says otherwise: {claims}"]
        return []

    def grant_lost(self, grant: Grant) -> list:
        answered = self.api.call("GET", "/oauth2/userinfo", token=grant.access_token)
        if answered.status != 200 or (answered.body or {}).get("sub") != grant.user_id:
            return [f"grant of {grant.user_id}: userinfo answered {answered.status} {answered.text[:100]}"]
        return []

    def still_usable(self) -> list:
        """The last check, with writes: codes still activate, devices log in, refresh tokens refresh."""
        problems = []
        for user in list(self.ledger.users):
            if user.state == "pending":
                problems += self.code_unusable(user)
            elif user.state == "active":
                try:
                    log_in(self.api, user)
                except Doubt as error:
                    problems.append(f"user {user.user_id}: its device cannot log in: {error}")
        for grant in list(self.ledger.grants):
            refreshed = self.api.call("POST", "/oauth2/token", data={"grant_type": "refresh_token", "refresh_token": grant.refresh_token,
                                                                     "client_id": self.context.client_id})
            if refreshed.status != 200:
                problems.append(f"grant of {grant.user_id}: refresh answered {refreshed.status} {refreshed.text[:120]}")
            else:
                grant.refresh_token = refreshed.body.get("refresh_token", grant.refresh_token)
        return problems

    def code_unusable(self, user: User) -> list:
        shown = self.rp(f"/v1/users/{user.user_id}", "/v1/users/{id}")
        if shown.status == 200 and shown.body["status"] == "active" and user.activation_in_doubt:
            return []  # the activation in doubt happened: the code is spent, legitimately
        key = DeviceKey()
        password = secrets.token_urlsafe(12)
        activated = self.api.call("POST", "/v1/activate", json={
            "user_id": user.user_id, "activation_code": user.code, "password": password, "device_name": "faults check",
            "device_public_key": key.jwk()})
        if activated.status != 201 or activated.body.get("status_code") != 100:
            return [f"user {user.user_id}: its activation code no longer works: {activated.status} {activated.text[:120]}"]
        user.state, user.password, user.key, user.device_id = "active", password, key, activated.body["device_id"]
        user.token = activated.body["session"]["token"]
        return []

    def delivery(self, notification: Notification):
        """The result API's delivery of a notification's webhook."""
        return (self.rp(f"/v1/notifications/{notification.uuid}/result", "/v1/notifications/{id}/result").body or {}).get("delivery")

    def outbox(self, timeout: float) -> dict:
        """Waits until every answered notification with a callback is delivered; then compares the
        attempts the result API reports with the POSTs the receiver saw for each delivery id."""
        secret = self.rp("/v1/webhooks/secret", "/v1/webhooks/secret").body["secret"]
        deadline = time.monotonic() + timeout
        figures = {"answered": 0, "delivered": 0, "posts": 0, "undelivered": [], "attempts_below_posts": [], "bad_signatures": 0,
                   "never_posted": []}
        waiting = [n for n in self.ledger.notifications if n.state in ("answered", "answer_in_doubt")]
        final = {}
        while waiting:
            still = []
            for notification in waiting:
                result = self.rp(f"/v1/notifications/{notification.uuid}/result", "/v1/notifications/{id}/result").body or {}
                if result.get("status") == "pending":
                    continue  # an answer in doubt that did not happen
                delivery = result.get("delivery") or {}
                if delivery.get("state") == "delivered" or delivery.get("state") == "failed":
                    final[notification.uuid] = delivery
                else:
                    still.append(notification)
            waiting = still
            if waiting and time.monotonic() > deadline:
                break
            if waiting:
                time.sleep(0.25)
        figures["answered"] = len(final) + len(waiting)
        figures["undelivered"] = [f"{n.uuid}: {json.dumps(self.delivery(n))}" for n in waiting]
        for uuid, delivery in final.items():
            seen = self.context.receiver.seen(delivery.get("delivery_id", ""))
            figures["posts"] += len(seen)
            if delivery.get("state") != "delivered":
                figures["undelivered"].append(f"{uuid}: {json.dumps(delivery)}")
                continue
            figures["delivered"] += 1
            if not seen:
                figures["never_posted"].append(uuid)
            if delivery.get("attempts", 0) < len(seen):
                figures["attempts_below_posts"].append(f"{delivery['delivery_id']}: attempts {delivery.get('attempts')}, POSTs seen {len(seen)}")
            figures["bad_signatures"] += sum(1 for header, body in seen if not signature_valid(header, body, secret))
        return figures
