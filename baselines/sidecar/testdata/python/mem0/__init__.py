"""Stand-in for the Python mem0ai (arbor tests only): Memory.from_config,
add(messages, user_id, metadata) with one fact-extraction call to the
configured endpoint, and lexical search(query, filters, limit)."""
import re
import uuid

from openai import OpenAI

__version__ = "2.0.0-standin"


def _words(s):
    return set(re.findall(r"[a-z0-9]+", s.lower()))


class Memory:
    def __init__(self, cfg):
        llm = cfg["llm"]["config"]
        self.client = OpenAI(api_key=llm.get("api_key"), base_url=llm["openai_base_url"])
        self.model = llm["model"]
        self.store = []

    @classmethod
    def from_config(cls, cfg):
        for key in ("llm", "embedder", "vector_store"):
            if key not in cfg:
                raise ValueError(f"config lacks {key}")
        return cls(cfg)

    def add(self, messages, user_id=None, metadata=None, **kw):
        if kw.get("timestamp") is not None:
            raise ValueError("timestamp is not supported in the OSS version")
        if not user_id:
            raise ValueError("One of the filters: user_id, agent_id or run_id is required!")
        self.client.chat.completions.create(model=self.model, messages=[{"role": "system", "content": "Personal Information Organizer"}] + messages)
        out = []
        for m in messages:
            if m["role"] == "user":
                rec = {"id": str(uuid.uuid4()), "memory": m["content"], "user_id": user_id, "metadata": dict(metadata or {}), "event": "ADD"}
                self.store.append(rec)
                out.append(rec)
        return {"results": out}

    def search(self, query, filters=None, limit=100, **kw):
        if not filters or not filters.get("user_id"):
            raise ValueError("filters must contain user_id")
        q = _words(query)
        hits = [(len(q & _words(r["memory"])), r) for r in self.store if r["user_id"] == filters["user_id"]]
        hits = [h for h in hits if h[0] > 0]
        hits.sort(key=lambda h: -h[0])
        return {"results": [{**r, "score": s} for s, r in hits[:limit]]}
