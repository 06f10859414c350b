"""Stand-in for LiCoMemory's init/config.py (arbor tests only)."""
from types import SimpleNamespace

import yaml


class Config(SimpleNamespace):
    @classmethod
    def parse(cls, path, dataset_name=""):
        with open(path) as f:
            raw = yaml.safe_load(f)
        return cls(dataset_name=dataset_name, **{k: SimpleNamespace(**v) for k, v in raw.items()})
