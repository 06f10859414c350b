from openai import AsyncOpenAI


class OpenAIGenericClient:
    def __init__(self, config=None, cache=False, client=None, max_tokens=16384, structured_output_mode="json_object"):
        if structured_output_mode not in ("json_object", "json_schema"):
            raise ValueError(f"structured_output_mode {structured_output_mode!r}")
        self.config, self.mode = config, structured_output_mode
        self.client = AsyncOpenAI(api_key=config.api_key, base_url=config.base_url)

    async def generate(self, text):
        fmt = {"type": self.mode}
        if self.mode == "json_schema":
            fmt["json_schema"] = {"name": "ExtractedEntities", "schema": {"type": "object"}}
        return await self.client.chat.completions.create(model=self.config.model, messages=[{"role": "user", "content": "Extract entities: " + text}], response_format=fmt)
