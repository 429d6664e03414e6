"""The parts of browser_flows.py (the web app's flows in headless Chromium; its docstring says how they run).

driver          Chromium on a fake camera and a virtual authenticator, the checks, the relying party's
                calls, the flows' own users (`Suite`, `Flow`, `check`)
pages           the app's files and pages: security headers, canonical JSON, text an attacker wrote
identity        accounts and devices: the admin screen, activation, the dashboard, the devices screen
biometric       the selfie screens: authentication, liveness, cancelling, lockout, errors, opt-out, KYC,
                document scan
notifications   the notifications screen: each level of proof, number matching, an expired password
signin          signing in: passkeys and the authorization endpoint of an OpenID client
admin           the operator's screens: the audit trail
"""
