"""Stand-in for LiCoMemory's base/embeddings.py (arbor tests only): the
EmbeddingManager's two paths as the real one has them (EverM0re/LiCoMemory):
api_type hf loads a sentence-transformers model and calls its encode;
anything else keeps the openai module, whose pre-1.0 Embedding.acreate the
installed openai lacks, so that path logs and returns no vectors."""
import sys


class EmbeddingManager:
    def __init__(self, config=None):
        self.api_type = config.api_type
        self.model_name = config.model
        self.cache_dir = getattr(config, "cache_dir", None)
        self.dimensions = getattr(config, "dimensions", None)
        self.device = "cpu"
        if self.api_type == "hf":
            from sentence_transformers import SentenceTransformer
            self.client = SentenceTransformer(self.model_name, cache_folder=self.cache_dir, device=self.device)
        else:
            import openai
            self.client = openai

    async def get_embeddings(self, texts, need_tensor=False):
        try:
            if self.api_type == "hf":
                embeddings = self.client.encode(texts, convert_to_tensor=True, device=str(self.device))
                if need_tensor:
                    return embeddings
                return embeddings.cpu().tolist()
            response = await self.client.Embedding.acreate(input=texts, model=self.model_name)
            return [d.embedding for d in response.data]
        except Exception as e:
            sys.stderr.write(f"Failed to get embeddings: {e}\n")
            return []
