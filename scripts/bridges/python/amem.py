"""arbor's A-MEM sidecar (paper §6.1, appendix C.2 "A-MEM"): drives
agentic_memory.memory_system.AgenticMemorySystem over protocol version 1 of
baselines/sidecar/PROTOCOL.md.

Written against A-MEM (agiresearch/A-mem, package agentic_memory) 0.0.1 at
commit a5b9ded. Install: pip install git+https://github.com/agiresearch/A-mem
(it brings chromadb and sentence-transformers; under embedder: native its
embedding model, all-MiniLM-L6-v2 by default, must be in the local Hugging
Face cache).

Each interaction becomes memory notes stamped with the session time
(add_note(content, time="YYYYMMDDHHmm")); recall is search_agentic(query, k)
and returns the notes' content with their context and keywords. A-MEM's
Chroma client is process-global and reset by the constructor, so one process
serves one episode at a time and reset builds a new system.

Options (bridges.amem.options): accelerated (true: one note per interaction,
the "accelerated ingestion path" of the paper; false: one note per turn),
model_name (the note embedder under embedder: native), evo_threshold.

Embeddings (bridges.amem.embedder): "role" (the default) routes every
embedding A-MEM makes through arbor's embed role. A-MEM's constructor takes
only a sentence-transformers model name, but all its embeddings are made by
the Chroma embedding function that ChromaRetriever builds from the name
SentenceTransformerEmbeddingFunction of its module (agiresearch/A-mem,
agentic_memory/retrievers.py; memory_system.py builds a ChromaRetriever in
the constructor and again in consolidate_memories), and Chroma accepts any
embedding function: the sidecar replaces that name with one calling the
embed endpoint. "native" keeps A-MEM's own model (options.model_name).
"""

import importlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import arbor_sidecar as sc  # noqa: E402

INSTALL = "pip install git+https://github.com/agiresearch/A-mem (see scripts/bridges/python/amem.py)"
ms = sc.need("agentic_memory.memory_system", "amem", INSTALL)


def route_embeddings(role):
    """Replaces the embedding function A-MEM's ChromaRetriever builds with one
    that embeds through role (a RoleEmbedder); see the header."""
    retr = sc.need("agentic_memory.retrievers", "amem", INSTALL)
    if not hasattr(retr, "SentenceTransformerEmbeddingFunction"):
        raise RuntimeError("agentic_memory.retrievers builds no SentenceTransformerEmbeddingFunction to replace: "
                           "this A-MEM embeds differently; set bridges.amem.embedder: native")
    try:
        base = importlib.import_module("chromadb.api.types").EmbeddingFunction
    except (ImportError, AttributeError):
        base = object

    class RoleEmbeddingFunction(base):
        """A Chroma embedding function over arbor's embed role."""

        def __init__(self, model_name=None, **_):
            self.model_name = role.model

        def __call__(self, input):  # Chroma passes the texts as `input`
            return role.embed(input)

    retr.SentenceTransformerEmbeddingFunction = RoleEmbeddingFunction


class AMem(sc.Bridge):
    system = "amem"
    library = "agentic_memory"
    written_against = "0.0.1"

    def hello(self, req):
        chat = req["chat"]
        self.opts = req.get("options") or {}
        # A-MEM's OpenAI controller reads the endpoint from the environment.
        os.environ["OPENAI_BASE_URL"] = chat["base_url"]
        os.environ["OPENAI_API_KEY"] = sc.api_key(chat)
        self.model = chat["model"]
        sc.count_openai(chat.get("temperature"))
        self.embedder = sc.embedder_choice(self.opts, self.system)
        if self.embedder == "role":
            route_embeddings(sc.RoleEmbedder(req["embed"]))
        self.mem = None

    def library_version(self):
        return sc.version_of(self.library, ms)

    def reset(self, episode):
        self.mem = None
        self.notes = {}  # note id -> (interaction id, time)
        self.interactions = self.failed = 0
        if episode:
            self.mem = ms.AgenticMemorySystem(
                model_name=self.opts.get("model_name", "all-MiniLM-L6-v2"),
                llm_backend="openai",
                llm_model=self.model,
                evo_threshold=int(self.opts.get("evo_threshold", 100)),
            )

    def commit(self, inter):
        if self.mem is None:
            raise RuntimeError("commit before reset: no episode")
        self.interactions += 1
        t = sc.parse_time(inter.get("time"))
        stamp = t.strftime("%Y%m%d%H%M") if t else None
        if self.opts.get("accelerated", True):
            contents = [sc.transcript(inter)]
        else:
            contents = [f"{x['role']}: {x['content']}" for x in inter["turns"] if x.get("content", "").strip()]
        try:
            for c in contents:
                if c:
                    nid = self.mem.add_note(c, time=stamp) if stamp else self.mem.add_note(c)
                    self.notes[nid] = (inter["id"], inter.get("time", ""))
        except Exception:
            self.failed += 1
            raise
        return {"units": len(contents)}

    def flush(self):
        return {"interactions": self.interactions, "pending": 0, "failed": self.failed, "units": len(self.notes)}

    def recall(self, query, time, k, budget):
        if self.mem is None or not self.notes:
            return {"items": []}
        items = []
        for r in self.mem.search_agentic(query, k):
            src = self.notes.get(r.get("id"))
            if src is None:
                continue  # not a note of this episode
            text = r.get("content", "")
            extra = []
            if r.get("context"):
                extra.append(f"context: {r['context']}")
            if r.get("keywords"):
                extra.append("keywords: " + ", ".join(map(str, r["keywords"])))
            if extra:
                text += "\n(" + "; ".join(extra) + ")"
            items.append({"text": text, "score": float(r.get("score", 0) or 0), "time": src[1], "sources": [src[0]], "channel": "fact"})
        return {"items": items[:k]}


if __name__ == "__main__":
    sc.run(AMem())
