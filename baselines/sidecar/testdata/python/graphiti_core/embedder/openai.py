from dataclasses import dataclass

from openai import AsyncOpenAI


@dataclass
class OpenAIEmbedderConfig:
    api_key: str = None
    base_url: str = None
    embedding_model: str = "text-embedding-3-small"
    embedding_dim: int = 1024


class OpenAIEmbedder:
    def __init__(self, config=None, client=None):
        self.config = config
        self.client = AsyncOpenAI(api_key=config.api_key, base_url=config.base_url)

    async def create(self, input_data):
        r = await self.client.embeddings.create(model=self.config.embedding_model, input=input_data)
        return r.data[0].embedding[: self.config.embedding_dim]
