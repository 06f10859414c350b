"""Stand-in for A-MEM's agentic_memory.memory_system (arbor tests only): the
API arbor's sidecar uses, with A-MEM's quirks that matter to it (a
process-global store reset by the constructor, time as YYYYMMDDHHmm), one
annotation call per note to the configured OpenAI endpoint, and every note
and query embedded through its ChromaRetriever (retrievers.py) as A-MEM's
are; the ranking itself is lexical, so that results do not hang on the
fake endpoint's vectors."""
import re
import uuid

from openai import OpenAI

from .retrievers import ChromaRetriever

__version__ = "0.0.1-standin"

_STORE = {}  # process-global, like A-MEM's Chroma client


def _words(s):
    return set(re.findall(r"[a-z0-9]+", s.lower()))


class AgenticMemorySystem:
    def __init__(self, model_name="all-MiniLM-L6-v2", llm_backend="openai", llm_model="gpt-4o-mini", evo_threshold=100, api_key=None):
        if llm_backend != "openai":
            raise ValueError("stand-in supports llm_backend openai only")
        _STORE.clear()  # the constructor resets the shared collection
        self.llm = OpenAI(api_key=api_key)
        self.model = llm_model
        self.memories = _STORE
        self.retriever = ChromaRetriever(collection_name="memories", model_name=model_name)

    def add_note(self, content, time=None, **kw):
        if time is not None and not re.fullmatch(r"\d{12}", time):
            raise ValueError(f"time {time!r} is not YYYYMMDDHHmm")
        self.llm.chat.completions.create(model=self.model, messages=[{"role": "user", "content": "Generate a structured analysis of: " + content}],
                                         response_format={"type": "json_schema", "json_schema": {"name": "note"}})
        nid = str(uuid.uuid4())
        words = sorted(w for w in _words(content) if len(w) > 4)[:3]
        self.memories[nid] = {"id": nid, "content": content, "context": "General", "keywords": words, "tags": [], "timestamp": time}
        self.retriever.add_document(content, {}, nid)
        return nid

    def search_agentic(self, query, k=5):
        self.retriever.embed_query(query)
        q = _words(query)
        scored = [(len(q & _words(m["content"])), m) for m in self.memories.values()]
        scored = [x for x in scored if x[0] > 0]
        scored.sort(key=lambda x: (-x[0], x[1]["timestamp"] or "", x[1]["content"]))
        return [{**m, "score": s, "is_neighbor": False} for s, m in scored[:k]]
