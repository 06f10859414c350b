from dataclasses import dataclass


@dataclass
class LLMConfig:
    api_key: str = None
    model: str = None
    base_url: str = None
    temperature: float = 1.0
    max_tokens: int = 8192
    small_model: str = None
