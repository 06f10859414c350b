"""arbor's sidecar for the Python mem0ai (for users who run Mem0 from Python;
arbor's default Mem0 bridge is the Node one in scripts/bridges/mem0/): drives
mem0.Memory over protocol version 1 of baselines/sidecar/PROTOCOL.md, with the
same configuration as the Node sidecar (appendix C.2 "Mem0": an independent
retrieval-oriented store per evaluation case, BGE-M3 for semantic retrieval).

Written against mem0ai 2.0.x (Python). Install: pip install "mem0ai==2.0.*".

One Memory per episode (Memory.from_config): the OpenAI LLM and embedder on
arbor's chat and embed endpoints, an in-process Qdrant collection of the
embedder's dimension in a temporary folder, history in a temporary SQLite
file. The OSS Memory refuses a timestamp, so the session time goes into the
text and the metadata. Recall is search(query, filters={user_id}, limit=k).
"""

import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import arbor_sidecar as sc  # noqa: E402

os.environ.setdefault("MEM0_TELEMETRY", "False")  # no telemetry to an external host
INSTALL = 'pip install "mem0ai==2.0.*" (see scripts/bridges/python/mem0py.py)'
mem0 = sc.need("mem0", "mem0", INSTALL)


class Mem0(sc.Bridge):
    system = "mem0"
    library = "mem0ai"
    written_against = "2.0"

    def hello(self, req):
        self.chat, self.embed = req["chat"], req["embed"]
        self.opts = req.get("options") or {}
        sc.count_openai(self.chat.get("temperature"))
        self.mem, self.dir = None, None

    def library_version(self):
        return sc.version_of(self.library, mem0)

    def reset(self, episode):
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)
        self.mem, self.dir, self.episode = None, None, episode
        self.interactions = self.failed = self.units = 0
        if not episode:
            return
        self.dir = tempfile.mkdtemp(prefix="arbor-mem0-")
        llm = {"model": self.chat["model"], "openai_base_url": self.chat["base_url"], "api_key": sc.api_key(self.chat)}
        if self.chat.get("temperature") is not None:
            llm["temperature"] = self.chat["temperature"]
        cfg = {
            "version": "v1.1",
            "llm": {"provider": "openai", "config": llm},
            "embedder": {"provider": "openai", "config": {"model": self.embed["model"], "openai_base_url": self.embed["base_url"], "api_key": sc.api_key(self.embed)}},
            "vector_store": {"provider": "qdrant", "config": {"collection_name": "arbor", "embedding_model_dims": self.embed.get("dim") or 1024,
                                                               "path": os.path.join(self.dir, "qdrant"), "on_disk": False}},
            "history_db_path": os.path.join(self.dir, "history.db"),
        }
        self.mem = mem0.Memory.from_config(cfg)

    def commit(self, inter):
        if self.mem is None:
            raise RuntimeError("commit before reset: no episode")
        self.interactions += 1
        t = inter.get("time", "")
        stamp = t.replace("T", " ")[:16] if t else ""
        msgs = [{"role": "assistant" if x["role"] == "assistant" else "user", "content": f"[{stamp}] {x['content']}" if stamp else x["content"]}
                for x in inter["turns"] if x.get("content", "").strip()]
        if not msgs:
            return {"units": 0}
        try:
            res = self.mem.add(msgs, user_id=self.episode, metadata={"interaction_id": inter["id"], "session": inter.get("session", ""), "time": t})
        except Exception:
            self.failed += 1
            raise
        n = len((res or {}).get("results", []))
        self.units += n
        return {"units": n}

    def flush(self):
        return {"interactions": self.interactions, "pending": 0, "failed": self.failed, "units": self.units}

    def recall(self, query, time, k, budget):
        if self.mem is None or self.interactions == 0:
            return {"items": []}
        try:
            res = self.mem.search(query, filters={"user_id": self.episode}, limit=k)
        except TypeError:  # releases before filters= took user_id
            res = self.mem.search(query, user_id=self.episode, limit=k)
        items = []
        for r in (res or {}).get("results", []):
            md = r.get("metadata") or {}
            if not md.get("interaction_id"):
                continue
            items.append({"text": r.get("memory", ""), "score": float(r.get("score", 0) or 0), "time": md.get("time", ""),
                          "sources": [md["interaction_id"]], "channel": "fact"})
        return {"items": items}


if __name__ == "__main__":
    sc.run(Mem0())
