from .._http import post


class Embeddings:
    def __init__(self, client):
        self._client = client

    def create(self, **body):
        return post(self._client, "/embeddings", body)


class AsyncEmbeddings(Embeddings):
    async def create(self, **body):
        return post(self._client, "/embeddings", body)
