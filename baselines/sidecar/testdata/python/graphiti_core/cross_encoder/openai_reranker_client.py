class OpenAIRerankerClient:
    def __init__(self, config=None, client=None):
        self.config = config
