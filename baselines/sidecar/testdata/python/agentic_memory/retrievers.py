"""Stand-in for A-MEM's agentic_memory/retrievers.py (arbor tests only): a
ChromaRetriever that builds its embedding function from the module-level
name SentenceTransformerEmbeddingFunction at construction, as A-MEM's does
(agiresearch/A-mem), and embeds every document and query through it. The
stand-in native function encodes with the sentence-transformers stand-in
(no model, no network)."""
from sentence_transformers import SentenceTransformer


class SentenceTransformerEmbeddingFunction:
    """Stand-in for chromadb's sentence-transformers embedding function: it
    encodes with a SentenceTransformer (here the stand-in's, which records
    what it embeds)."""

    def __init__(self, model_name="all-MiniLM-L6-v2", **_):
        self.model = SentenceTransformer(model_name)

    def __call__(self, input):
        return self.model.encode(list(input)).tolist()


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
