import json
import urllib.request
from types import SimpleNamespace


def _ns(v):
    if isinstance(v, dict):
        return SimpleNamespace(**{k: _ns(x) for k, x in v.items()})
    if isinstance(v, list):
        return [_ns(x) for x in v]
    return v


def post(client, path, body):
    req = urllib.request.Request(client.base_url + path, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json", "Authorization": "Bearer " + (client.api_key or "none")})
    with urllib.request.urlopen(req, timeout=30) as r:
        return _ns(json.loads(r.read()))
