"""A small events-websocket client on Python's `websockets` (Debian python3-websockets), as a user would write it.

Usage: python3 ws_client.py URL [--insecure] [--sign ACCESS_KEY SECRET_KEY REGION X_HYPER_DATE]
Prints one JSON object: {"frames": [...], "close": {"code": N, "reason": "..."}} or {"refused": STATUS}.
With --sign it adds the real service's HYPER-HMAC-SHA256 headers, computed here independently of dockside,
following hyperhq/hypercli's Sign4 (AWS Signature V4 with Hyper's names).
"""
import asyncio
import hashlib
import hmac
import inspect
import json
import ssl
import sys
import urllib.parse

import websockets
import websockets.exceptions


def sign(url, access_key, secret_key, region, date):
    u = urllib.parse.urlsplit(url)
    default_port = 443 if u.scheme == "wss" else 80
    host = u.hostname if u.port in (None, default_port) else f"{u.hostname}:{u.port}"
    payload_hash = hashlib.sha256(b"").hexdigest()
    headers = {"content-type": "application/json", "host": host, "x-hyper-content-sha256": payload_hash, "x-hyper-date": date}
    names = sorted(headers)
    path = "/".join(urllib.parse.quote(s, safe="-_.~") for s in urllib.parse.unquote(u.path).split("/") if s)
    pairs = sorted(urllib.parse.parse_qsl(u.query, keep_blank_values=True), key=lambda kv: kv[0])
    query = "&".join(f"{urllib.parse.quote(k, safe='-_.~')}={urllib.parse.quote(v, safe='-_.~')}" for k, v in pairs)
    canonical = "\n".join(["GET", path, query, "".join(f"{n}:{headers[n]}\n" for n in names), ";".join(names), payload_hash])
    scope = f"{date[:8]}/{region}/hyper/hyper_request"
    to_sign = "\n".join(["HYPER-HMAC-SHA256", date, scope, hashlib.sha256(canonical.encode()).hexdigest()])
    key = ("HYPER" + secret_key).encode()
    for part in (date[:8], region, "hyper", "hyper_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    return {
        "Content-Type": "application/json",
        "X-Hyper-Date": date,
        "X-Hyper-Content-Sha256": payload_hash,
        "Authorization": f"HYPER-HMAC-SHA256 Credential={access_key}/{scope}, SignedHeaders={';'.join(names)}, Signature={signature}",
    }


async def main():
    args = sys.argv[1:]
    url = args[0]
    kwargs = {}
    if "--insecure" in args:
        # Real clients of the service hard-code wss:// and skip certificate checks.
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        kwargs["ssl"] = ctx
    if "--sign" in args:
        i = args.index("--sign")
        headers = sign(url, *args[i + 1 : i + 5])
        # websockets >= 14 calls it additional_headers; Debian bookworm's 10.4 calls it extra_headers.
        name = "additional_headers" if "additional_headers" in inspect.signature(websockets.connect).parameters else "extra_headers"
        kwargs[name] = headers
    frames = []
    try:
        async with websockets.connect(url, **kwargs) as ws:
            try:
                async for message in ws:
                    frames.append(json.loads(message))
            except websockets.exceptions.ConnectionClosed:
                pass
            code, reason = ws.close_code, ws.close_reason
    except websockets.exceptions.InvalidStatusCode as e:  # websockets < 14
        print(json.dumps({"refused": e.status_code}))
        return
    except getattr(websockets.exceptions, "InvalidStatus", ()) as e:  # websockets >= 14
        print(json.dumps({"refused": e.response.status_code}))
        return
    print(json.dumps({"frames": frames, "close": {"code": code, "reason": reason}}))


asyncio.run(main())
