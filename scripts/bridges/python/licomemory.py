"""arbor's LiCoMemory sidecar (paper §6.1, appendix C.2 "LiCoMemory"): drives
LiCoMemory's GraphRAG over protocol version 1 of baselines/sidecar/PROTOCOL.md.

Written against EverM0re/LiCoMemory at commit f1999c6 (no release or package).
Install: git clone https://github.com/EverM0re/LiCoMemory, pip install -r its
requirements, and set bridges.licomemory.options.repo to the clone (or put it
on PYTHONPATH).

Embeddings (bridges.licomemory.embedder): "role" (the default) routes them
through arbor's embed role. LiCoMemory makes every embedding through
EmbeddingManager (EverM0re/LiCoMemory, base/embeddings.py), of which it
builds several: GraphRAGCore's (coregraph/graph_rag_core.py, shared with
the graph extractors and handed to the QueryProcessor) and the
QueryProcessor's own, which its SummaryRetriever keeps
(query/query_processor.py). Its Hugging Face path calls
client.encode(texts, convert_to_tensor=True, device=…). The sidecar wraps
the class's constructor: each manager is built without loading a local
model and then given an encoder that calls the embed endpoint, on the hf
path. Its own "openai" path cannot be used: it needs the pre-1.0 OpenAI API.
"native" keeps LiCoMemory's local Hugging Face model (api_type: hf, its
config's embedding.model).

The conversation is cut into chunks of about chunk_tokens (8,000: "Conversation
histories are divided into approximately 8K-token chunks") and each chunk
goes through LiCoMemory's native memory-graph construction
(await GraphRAG.insert([{context, session_time, session_id, doc_id}])). A
question first inserts the chunk in progress, so that everything committed
before it is in the graph. Recall is await GraphRAG.query(question,
question_time=...): its retrieved evidence (summaries, triples, chunks) is
returned and its answer ignored ("Its native answer generator is disabled so
that retrieved evidence can be evaluated with the shared answer model").
One working folder per episode.

Options (bridges.licomemory.options): repo, config (LiCoMemory's YAML; default
<repo>/config/Memory.yaml), chunk_tokens.
"""

import copy
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import arbor_sidecar as sc  # noqa: E402

INSTALL = "git clone https://github.com/EverM0re/LiCoMemory and set bridges.licomemory.options.repo (see scripts/bridges/python/licomemory.py)"


def _repo_from_args():
    # The repository must be importable before the handshake: arbor passes
    # options.repo also as --repo so that a missing clone fails at start.
    for i, a in enumerate(sys.argv):
        if a == "--repo" and i + 1 < len(sys.argv) and sys.argv[i + 1]:
            sys.path.insert(0, sys.argv[i + 1])


_repo_from_args()
graph_rag = sc.need("init.graph_rag", "licomemory", INSTALL)
config_mod = sc.need("init.config", "licomemory", INSTALL)


def _set(obj, name, value):
    if obj is not None and value is not None and hasattr(obj, name):
        setattr(obj, name, value)


def approx_tokens(text):
    """LiCoMemory counts chunk sizes in tokens; about 0.75 words per token."""
    return int(len(text.split()) / 0.75)


class Rows(list):
    """Vectors as the Hugging Face path hands them on without torch: a list
    with the tensor methods LiCoMemory calls (tolist, cpu)."""

    def tolist(self):
        return [list(r) if isinstance(r, list) else r for r in self]

    def cpu(self):
        return self


class RoleEncoder:
    """SentenceTransformer.encode's signature over arbor's embed role."""

    def __init__(self, role):
        self.role = role

    def encode(self, texts, convert_to_tensor=False, device=None, **_):
        one = isinstance(texts, str)
        vecs = self.role.embed([texts] if one else list(texts))
        if convert_to_tensor:
            try:
                import torch
                t = torch.tensor(vecs, dtype=torch.float32)
                t = t.to(device) if device else t
                return t[0] if one else t
            except ImportError:
                pass
        return Rows(vecs[0] if one else vecs)


def route_embeddings(role):
    """Wraps EmbeddingManager's constructor so that every manager LiCoMemory
    builds embeds through role (a RoleEmbedder); see the header."""
    mod = sc.need("base.embeddings", "licomemory", INSTALL)
    cls = getattr(mod, "EmbeddingManager", None)
    if cls is None:
        raise RuntimeError("LiCoMemory's base.embeddings has no EmbeddingManager to route through the embed role: "
                           "set bridges.licomemory.embedder: native")
    if getattr(cls.__init__, "_arbor", False):
        return
    orig = cls.__init__

    def init(self, config=None, *a, **kw):
        if config is not None:
            # Built as if not on the hf path, so that no local model loads.
            try:
                config = copy.copy(config)
                config.api_type = "arbor-embed-role"
            except Exception as e:
                raise RuntimeError(f"LiCoMemory's embedding config cannot be copied ({e}): set bridges.licomemory.embedder: native")
        orig(self, config, *a, **kw)
        self.api_type, self.client, self.model_name = "hf", RoleEncoder(role), role.model
        if role.dim:
            self.dimensions = role.dim

    init._arbor = True
    cls.__init__ = init


class LiCoMemory(sc.Bridge):
    system = "licomemory"
    library = "LiCoMemory"
    written_against = "f1999c6"

    def hello(self, req):
        chat = req["chat"]
        self.opts = req.get("options") or {}
        repo = self.opts.get("repo") or os.path.dirname(os.path.dirname(os.path.abspath(graph_rag.__file__)))
        path = self.opts.get("config") or os.path.join(repo, "config", "Memory.yaml")
        from pathlib import Path
        self.config = config_mod.Config.parse(Path(path), dataset_name="arbor")
        for section in ("llm", "query_llm"):
            c = getattr(self.config, section, None)
            _set(c, "base_url", chat["base_url"])
            _set(c, "model", chat["model"])
            _set(c, "api_key", sc.api_key(chat))
            _set(c, "temperature", chat.get("temperature"))
        emb = getattr(self.config, "embedding", None)
        self.embedder = sc.embedder_choice(self.opts, self.system)
        self.role = None
        _set(emb, "api_type", "hf")
        if self.embedder == "role":
            self.role = sc.RoleEmbedder(req["embed"])
            _set(emb, "model", self.role.model)
            _set(emb, "dimensions", self.role.dim)
            route_embeddings(self.role)
        self.chunk_tokens = int(self.opts.get("chunk_tokens") or 8000)
        sc.count_openai(chat.get("temperature"))
        self.dir = None
        self.rag = None

    def library_version(self):
        # A git checkout has no version of its own: its commit is the version.
        repo = os.path.dirname(os.path.dirname(os.path.abspath(graph_rag.__file__)))
        try:
            with open(os.path.join(repo, ".git", "HEAD")) as f:
                head = f.read().strip()
            if head.startswith("ref: "):
                with open(os.path.join(repo, ".git", head[5:])) as f:
                    head = f.read().strip()
            return head[:7]
        except OSError:
            return "unknown (not a git checkout)"

    def reset(self, episode):
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)
        self.dir, self.rag = None, None
        self.chunks = {}  # doc_id -> (interaction ids, time)
        self.current, self.interactions, self.failed = [], 0, 0
        if episode:
            self.dir = tempfile.mkdtemp(prefix="arbor-licomemory-")
            self.rag = graph_rag.GraphRAG(self.config, self.dir)

    async def _insert(self):
        if not self.current:
            return
        batch, self.current = self.current, []
        doc_id = len(self.chunks)
        text = "\n".join(f"[{i.get('time', '')}] {sc.transcript(i)}" if i.get("time") else sc.transcript(i) for i in batch)
        doc = {"context": text, "session_time": batch[-1].get("time", ""), "session_id": batch[-1].get("session") or str(doc_id), "doc_id": doc_id}
        try:
            await self.rag.insert([doc])
        except Exception:
            self.failed += len(batch)
            raise
        self.chunks[doc_id] = ([i["id"] for i in batch], batch[-1].get("time", ""))

    async def commit(self, inter):
        if self.rag is None:
            raise RuntimeError("commit before reset: no episode")
        self.interactions += 1
        self.current.append(inter)
        if sum(approx_tokens(sc.transcript(i)) for i in self.current) >= self.chunk_tokens:
            await self._insert()
        return {}

    async def flush(self):
        await self._insert()
        return {"interactions": self.interactions, "pending": 0, "failed": self.failed, "units": len(self.chunks)}

    async def recall(self, query, time, k, budget):
        if self.rag is None or not self.chunks:
            return {"items": []}
        res = await self.rag.query(query, question_time=sc.format_time(time))
        if not isinstance(res, dict):
            raise RuntimeError(f"GraphRAG.query returned {type(res).__name__}, not the evidence dict")
        if str(res.get("answer", "")).startswith("Error processing query"):
            raise RuntimeError(res["answer"])
        everything = [i for ids, _ in self.chunks.values() for i in ids]

        def chunk_sources(c):
            for key in ("doc_id", "chunk_id", "id"):
                v = c.get(key) if isinstance(c, dict) else None
                if v is not None and int(v) in self.chunks:
                    return self.chunks[int(v)]
            return None

        items, cited = [], []
        for c in res.get("chunks") or []:
            src = chunk_sources(c)
            text = c.get("context") or c.get("content") or c.get("text") if isinstance(c, dict) else str(c)
            if src is None or not text:
                continue
            cited.extend(src[0])
            items.append({"text": text, "score": float(c.get("score", 0) or 0), "time": src[1], "sources": src[0], "channel": "turn"})
        # Summaries and triples carry no chunk id: they cite the retrieved
        # chunks, or the whole episode when none were retrieved.
        derived = sorted(set(cited), key=everything.index) or everything
        # ... and carry the time of the newest chunk they cite.
        when = max((t for ids, t in self.chunks.values() if set(ids) & set(derived)), default="")
        head = []
        for s in res.get("summaries") or []:
            text = s.get("summary") or s.get("text") if isinstance(s, dict) else str(s)
            if text:
                head.append({"text": text, "score": 0, "time": when, "sources": derived, "channel": "summary"})
        for t in res.get("triples") or []:
            text = " ".join(map(str, t)) if isinstance(t, (list, tuple)) else (t.get("text") if isinstance(t, dict) else str(t))
            if text:
                head.append({"text": text, "score": 0, "time": when, "sources": derived, "channel": "fact"})
        return {"items": head + items}


if __name__ == "__main__":
    sc.run(LiCoMemory())
