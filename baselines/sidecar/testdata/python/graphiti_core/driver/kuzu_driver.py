class KuzuDriver:
    def __init__(self, db=":memory:", max_concurrent_queries=1):
        self.db = db
        self.groups = {}
        self.indexed = False
