"""The loop every Python sidecar of arbor shares: protocol version 1 of
baselines/sidecar/PROTOCOL.md (JSON lines on stdin/stdout, one request at a
time), model-call accounting, and the one-line failure when a library is
missing. A sidecar subclasses Bridge and calls run(Bridge()).

stdout carries the protocol only: whatever the library prints goes to stderr.
Standard library only, so that it runs wherever the bridged library does.
"""

import asyncio
import importlib
import importlib.metadata
import inspect
import json
import os
import sys
from datetime import datetime, timezone

PROTOCOL = 1


def need(module, system, install):
    """Imports module, or exits at once with one clear line naming how to
    install it (arbor shows the line in its error)."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        sys.stderr.write(f"{system} sidecar: the Python module {module} is not installed ({e}); {install}\n")
        sys.stderr.flush()
        sys.exit(3)


def version_of(dist, module=None):
    """The installed version of a distribution, or the module's __version__."""
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return str(getattr(module, "__version__", "unknown"))


def parse_time(s):
    """An RFC 3339 time from arbor, or None."""
    if not s:
        return None
    return datetime.fromisoformat(s.replace("Z", "+00:00"))


def format_time(t):
    """A datetime as RFC 3339 for arbor ("" when None)."""
    if t is None:
        return ""
    if isinstance(t, str):
        return t
    if t.tzinfo is None:
        t = t.replace(tzinfo=timezone.utc)
    return t.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def transcript(interaction):
    """The interaction's turns as "role: content" lines."""
    return "\n".join(f"{t['role']}: {t['content']}" for t in interaction["turns"] if t.get("content", "").strip())


class Usage:
    """Model calls by role since the last reply."""

    def __init__(self):
        self.roles = {}

    def add(self, role, usage, ok=True):
        r = self.roles.setdefault(role, {"calls": 0, "errors": 0, "prompt_tokens": 0, "completion_tokens": 0})
        r["calls"] += 1
        if not ok:
            r["errors"] += 1
        if usage is not None:
            get = usage.get if isinstance(usage, dict) else (lambda k, d=0: getattr(usage, k, d))
            r["prompt_tokens"] += get("prompt_tokens", 0) or 0
            r["completion_tokens"] += get("completion_tokens", 0) or 0

    def take(self):
        out, self.roles = self.roles, {}
        return out


USAGE = Usage()


def count_openai(temperature=None):
    """Counts every call the openai package makes (chat → "chat",
    embeddings → "embed"), sync and async, and sets the chat temperature the
    library leaves to the server. Libraries that reach models through the
    openai client (all four bridged ones) are counted this way."""
    try:
        chat = importlib.import_module("openai.resources.chat.completions")
        emb = importlib.import_module("openai.resources.embeddings")
    except ImportError:
        return False

    def wrap(cls, role, extra):
        orig = cls.create
        if getattr(orig, "_arbor", False):
            return
        if inspect.iscoroutinefunction(orig):
            async def create(self, *a, **kw):
                kw = {**kw, **{k: v for k, v in extra.items() if k not in kw}}
                try:
                    res = await orig(self, *a, **kw)
                except Exception:
                    USAGE.add(role, None, ok=False)
                    raise
                USAGE.add(role, getattr(res, "usage", None))
                return res
        else:
            def create(self, *a, **kw):
                kw = {**kw, **{k: v for k, v in extra.items() if k not in kw}}
                try:
                    res = orig(self, *a, **kw)
                except Exception:
                    USAGE.add(role, None, ok=False)
                    raise
                USAGE.add(role, getattr(res, "usage", None))
                return res
        create._arbor = True
        cls.create = create

    extra = {} if temperature is None else {"temperature": temperature}
    for name in ("Completions", "AsyncCompletions"):
        if hasattr(chat, name):
            wrap(getattr(chat, name), "chat", extra)
    for name in ("Embeddings", "AsyncEmbeddings"):
        if hasattr(emb, name):
            wrap(getattr(emb, name), "embed", {})
    return True


def api_key(endpoint):
    env = endpoint.get("api_key_env") or ""
    return os.environ.get(env, "") if env else "none"


class RoleEmbedder:
    """Embeds through arbor's embed role: the OpenAI-compatible /v1/embeddings
    endpoint of the handshake's "embed" (BGE-M3 on configs/a800.yaml), with
    the openai client, so that count_openai accounts the calls as "embed".
    For libraries whose own embedder can be replaced (bridges.<system>.embedder:
    role); the vectors come back in input order whatever order the server
    sends them in."""

    batch = 32  # TEI's default max_client_batch_size

    def __init__(self, embed):
        from openai import OpenAI
        self.model = embed["model"]
        self.dim = embed.get("dim")
        self.client = OpenAI(base_url=embed["base_url"], api_key=api_key(embed))

    def embed(self, texts):
        texts = [texts] if isinstance(texts, str) else [str(t) for t in texts]
        out = []
        for i in range(0, len(texts), self.batch):
            res = self.client.embeddings.create(model=self.model, input=texts[i:i + self.batch])
            data = sorted(res.data, key=lambda d: getattr(d, "index", 0))
            if len(data) != len(texts[i:i + self.batch]):
                raise RuntimeError(f"embed endpoint returned {len(data)} vectors for {len(texts[i:i + self.batch])} texts")
            out.extend(list(map(float, d.embedding)) for d in data)
        return out


def embedder_choice(opts, system):
    """bridges.<system>.embedder from the handshake's options: "role" (the
    default) or "native"."""
    e = (opts or {}).get("embedder") or "role"
    if e not in ("role", "native"):
        raise ValueError(f"{system}: embedder {e!r} is not one of role, native")
    return e


class Bridge:
    """One system's sidecar. Methods may be coroutines; they run on one
    event loop that lives as long as the process."""

    system = ""
    library = ""  # distribution name
    written_against = ""

    def hello(self, req):
        """Checks the library and keeps the endpoints; returns nothing."""

    def reset(self, episode):
        raise NotImplementedError

    def commit(self, interaction):
        raise NotImplementedError

    def flush(self):
        raise NotImplementedError

    def recall(self, query, time, k, budget):
        raise NotImplementedError

    def library_version(self):
        return version_of(self.library)


def run(bridge):
    out = sys.stdout
    sys.stdout = sys.stderr  # the library's prints must not corrupt the protocol
    loop = asyncio.new_event_loop()

    def call(fn, *args):
        res = fn(*args)
        if inspect.isawaitable(res):
            res = loop.run_until_complete(res)
        return res or {}

    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            req = json.loads(line)
        except ValueError as e:
            sys.stderr.write(f"{bridge.system} sidecar: unreadable request: {e}\n")
            sys.exit(2)
        op = req.get("op")
        try:
            if op == "hello":
                call(bridge.hello, req)
                rep = {"protocol": PROTOCOL, "system": bridge.system, "library": bridge.library,
                       "library_version": bridge.library_version(), "written_against": bridge.written_against}
            elif op == "reset":
                rep = call(bridge.reset, req.get("episode") or "")
            elif op == "commit":
                rep = call(bridge.commit, req["interaction"])
            elif op == "flush":
                rep = call(bridge.flush)
            elif op == "recall":
                rep = call(bridge.recall, req.get("query", ""), parse_time(req.get("time")), int(req.get("k") or 50), int(req.get("budget") or 0))
            else:
                raise ValueError(f"unknown op {op!r}")
            rep = {**rep, "id": req.get("id"), "ok": True}
        except Exception as e:  # the library's failure is the episode's, not the process's
            msg = (str(e) or type(e).__name__).splitlines()[0]
            rep = {"id": req.get("id"), "ok": False, "error": f"{type(e).__name__}: {msg}"}
        rep["usage"] = USAGE.take()
        out.write(json.dumps(rep) + "\n")
        out.flush()
