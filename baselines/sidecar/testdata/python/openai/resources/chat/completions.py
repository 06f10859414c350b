from ..._http import post


class Completions:
    def __init__(self, client):
        self._client = client

    def create(self, **body):
        return post(self._client, "/chat/completions", body)


class AsyncCompletions(Completions):
    async def create(self, **body):
        return post(self._client, "/chat/completions", body)
