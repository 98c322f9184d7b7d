"""schemathesis hooks for .ci/schemathesis: a fresh token every second.

The run signs its own player out (DELETE /sessions is an operation like any
other), which would leave every later request with a dead token: the auth
provider signs in again, so that each operation is tried signed in.
"""
import json
import os
import urllib.request

import schemathesis


@schemathesis.auth(refresh_interval=1)
class FreshToken:
    def get(self, case, ctx):
        body = json.dumps({"name": os.environ["TAVOLIERE_PLAYER"], "password": os.environ["TAVOLIERE_PASSWORD"]})
        request = urllib.request.Request(
            os.environ["TAVOLIERE_BASE"] + "/api/v1/sessions",
            data=body.encode(),
            headers={"content-type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as answer:
            return json.load(answer)["token"]

    def set(self, case, data, ctx):
        case.headers = case.headers or {}
        case.headers["Authorization"] = f"Bearer {data}"
