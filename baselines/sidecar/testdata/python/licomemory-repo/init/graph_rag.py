"""Stand-in for LiCoMemory's init/graph_rag.py (arbor tests only): insert
builds "triples" from each chunk with one chat call to the configured
endpoint and keeps its state in base_dir (a pickle, like LiCoMemory);
query returns its evidence dict, with an answer arbor must ignore."""
import os
import pickle
import re

from openai import AsyncOpenAI


def _words(s):
    return set(re.findall(r"[a-z0-9]+", s.lower()))


class GraphRAG:
    def __init__(self, config, base_dir="./results"):
        if config.embedding.api_type != "hf":
            raise ValueError("the openai embedding path needs the pre-1.0 OpenAI API")
        self.config, self.base_dir = config, base_dir
        self.client = AsyncOpenAI(api_key=config.llm.api_key, base_url=config.llm.base_url)
        self.docs = []

    async def insert(self, corpus):
        for doc in corpus:
            for key in ("context", "session_time", "session_id", "doc_id"):
                if key not in doc:
                    raise KeyError(key)
            await self.client.chat.completions.create(model=self.config.llm.model, messages=[{"role": "user", "content": "Extract triples: " + doc["context"]}])
            self.docs.append(doc)
        with open(os.path.join(self.base_dir, "graph.pkl"), "wb") as f:
            pickle.dump(self.docs, f)

    async def query(self, question, question_time=""):
        q = _words(question)
        hits = sorted(((len(q & _words(d["context"])), d) for d in self.docs), key=lambda h: -h[0])
        chunks = [{"doc_id": d["doc_id"], "context": d["context"]} for s, d in hits if s > 0][:5]
        triples = [[d["session_id"], "mentions", w] for s, d in hits if s > 0 for w in sorted(q & _words(d["context"]))][:5]
        return {"answer": "stand-in answer that arbor must not use", "triples": triples, "chunks": chunks,
                "summaries": [], "formatted_prompt": "", "top_session_ids": []}
