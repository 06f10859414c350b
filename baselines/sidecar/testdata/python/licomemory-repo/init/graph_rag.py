"""Stand-in for LiCoMemory's init/graph_rag.py (arbor tests only): insert
builds "triples" from each chunk with one chat call to the configured
endpoint and keeps its state in base_dir (a pickle, like LiCoMemory);
query returns its evidence dict, with an answer arbor must ignore. Chunks
and questions are embedded through core.embedding_manager, the
EmbeddingManager LiCoMemory's GraphRAGCore builds and shares, and questions
also through a second one, as its QueryProcessor builds; where the real
one goes on without vectors, the stand-in fails, so that a test sees it."""
import os
import pickle
import re
import sys
from types import SimpleNamespace

from openai import AsyncOpenAI

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from base.embeddings import EmbeddingManager  # noqa: E402


def _words(s):
    return set(re.findall(r"[a-z0-9]+", s.lower()))


class GraphRAG:
    def __init__(self, config, base_dir="./results"):
        self.config, self.base_dir = config, base_dir
        self.core = SimpleNamespace(embedding_manager=EmbeddingManager(config.embedding))
        self.client = AsyncOpenAI(api_key=config.llm.api_key, base_url=config.llm.base_url)
        self.docs = []

    async def insert(self, corpus):
        for doc in corpus:
            for key in ("context", "session_time", "session_id", "doc_id"):
                if key not in doc:
                    raise KeyError(key)
            await self._embed(doc["context"])
            await self.client.chat.completions.create(model=self.config.llm.model, messages=[{"role": "user", "content": "Extract triples: " + doc["context"]}])
            self.docs.append(doc)
        with open(os.path.join(self.base_dir, "graph.pkl"), "wb") as f:
            pickle.dump(self.docs, f)

    async def _embed(self, text):
        vecs = await self.core.embedding_manager.get_embeddings([text])
        if len(vecs) != 1 or not vecs[0]:
            raise RuntimeError("no embedding for the text: the embedding manager returned nothing")

    async def query(self, question, question_time=""):
        # LiCoMemory's QueryProcessor builds an EmbeddingManager of its own
        # (its SummaryRetriever keeps it) before it is handed the core's.
        own = EmbeddingManager(self.config.embedding)
        vecs = await own.get_embeddings([question])
        if len(vecs) != 1 or not vecs[0]:
            raise RuntimeError("no embedding for the question from the query processor's own embedding manager")
        await self._embed(question)
        q = _words(question)
        hits = sorted(((len(q & _words(d["context"])), d) for d in self.docs), key=lambda h: -h[0])
        chunks = [{"doc_id": d["doc_id"], "context": d["context"]} for s, d in hits if s > 0][:5]
        triples = [[d["session_id"], "mentions", w] for s, d in hits if s > 0 for w in sorted(q & _words(d["context"]))][:5]
        return {"answer": "stand-in answer that arbor must not use", "triples": triples, "chunks": chunks,
                "summaries": [], "formatted_prompt": "", "top_session_ids": []}
