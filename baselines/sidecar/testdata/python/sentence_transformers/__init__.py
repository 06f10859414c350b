"""Stand-in for sentence-transformers (arbor tests only): SentenceTransformer
loads no model; encode hashes words into 64-d vectors locally and records
the texts, so that a test can tell the native embedder ran."""
import hashlib
import math
import re

__version__ = "0.0.0-standin"

CALLS = []


class _Rows(list):
    def tolist(self):
        return [list(r) for r in self]

    def cpu(self):
        return self


class SentenceTransformer:
    def __init__(self, model_name_or_path, cache_folder=None, device=None, **_):
        self.model_name = model_name_or_path

    def encode(self, texts, convert_to_tensor=False, device=None, **_):
        texts = [texts] if isinstance(texts, str) else list(texts)
        CALLS.extend(texts)
        out = _Rows()
        for t in texts:
            v = [0.0] * 64
            for w in re.findall(r"[a-z0-9]+", t.lower()):
                v[int(hashlib.md5(w.encode()).hexdigest(), 16) % 64] += 1.0
            n = math.sqrt(sum(x * x for x in v)) or 1.0
            out.append([x / n for x in v])
        return out
