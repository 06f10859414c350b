"""Stand-in for A-MEM's agentic_memory/retrievers.py (arbor tests only): a
ChromaRetriever that builds its embedding function from the module-level
name SentenceTransformerEmbeddingFunction at construction, as A-MEM's does
(agiresearch/A-mem), and embeds every document and query through it. The
stand-in native function hashes words locally (no model, no network), and
records what it embedded so that a test can tell which embedder ran."""
import hashlib
import math
import re

NATIVE_CALLS = []  # texts embedded by the native stand-in, for tests


class SentenceTransformerEmbeddingFunction:
    """Stand-in for chromadb's sentence-transformers embedding function."""

    def __init__(self, model_name="all-MiniLM-L6-v2", **_):
        self.model_name = model_name

    def __call__(self, input):
        NATIVE_CALLS.extend(input)
        out = []
        for text in input:
            v = [0.0] * 64
            for w in re.findall(r"[a-z0-9]+", text.lower()):
                v[int(hashlib.md5(w.encode()).hexdigest(), 16) % 64] += 1.0
            n = math.sqrt(sum(x * x for x in v)) or 1.0
            out.append([x / n for x in v])
        return out


class ChromaRetriever:
    def __init__(self, collection_name="memories", model_name="all-MiniLM-L6-v2"):
        self.embedding_function = SentenceTransformerEmbeddingFunction(model_name=model_name)
        self.vectors = {}
        self.dim = None

    def _embed(self, texts):
        vecs = self.embedding_function(input=list(texts))
        if len(vecs) != len(texts):
            raise ValueError(f"embedding function returned {len(vecs)} vectors for {len(texts)} texts")
        for v in vecs:
            if self.dim is None:
                self.dim = len(v)
            if len(v) != self.dim or self.dim == 0:
                raise ValueError(f"embedding of dimension {len(v)} in a collection of dimension {self.dim}")
        return vecs

    def add_document(self, document, metadata, doc_id):
        self.vectors[doc_id] = self._embed([document])[0]

    def embed_query(self, query):
        return self._embed([query])[0]
