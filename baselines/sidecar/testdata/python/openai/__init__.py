"""Stand-in for the openai package (arbor tests only): the client surface the
bridged libraries use (chat.completions.create, embeddings.create, sync and
async), talking to arbor's fake endpoint with urllib."""
import os

from .resources.chat.completions import AsyncCompletions, Completions
from .resources.embeddings import AsyncEmbeddings, Embeddings

__version__ = "0.0.0-standin"


class _Chat:
    def __init__(self, client, cls):
        self.completions = cls(client)


class OpenAI:
    def __init__(self, api_key=None, base_url=None, **_):
        self.api_key = api_key or os.environ.get("OPENAI_API_KEY", "")
        self.base_url = (base_url or os.environ["OPENAI_BASE_URL"]).rstrip("/")
        self.chat = _Chat(self, Completions)
        self.embeddings = Embeddings(self)


class AsyncOpenAI(OpenAI):
    def __init__(self, api_key=None, base_url=None, **_):
        super().__init__(api_key, base_url)
        self.chat = _Chat(self, AsyncCompletions)
        self.embeddings = AsyncEmbeddings(self)
