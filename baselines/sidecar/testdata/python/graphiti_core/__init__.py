"""Stand-in for graphiti_core (arbor tests only): the classes and functions
arbor's Graphiti sidecar uses, with the same module paths. add_episode makes
one structured-output call to the configured endpoint and one embedding
call, and turns each line of the body into a fact; search is lexical."""
import re
import uuid
from datetime import datetime
from types import SimpleNamespace

__version__ = "0.29.0-standin"


def _words(s):
    return set(re.findall(r"[a-z0-9]+", s.lower()))


class Graphiti:
    def __init__(self, uri=None, user=None, password=None, llm_client=None, embedder=None, cross_encoder=None, graph_driver=None):
        if graph_driver is None:
            raise ValueError("stand-in needs a graph_driver")
        self.driver, self.llm_client, self.embedder = graph_driver, llm_client, embedder

    async def build_indices_and_constraints(self):
        self.driver.indexed = True

    async def add_episode(self, name, episode_body, source_description, reference_time, source=None, group_id=""):
        if not isinstance(reference_time, datetime) or reference_time.tzinfo is None:
            raise ValueError("reference_time must be a timezone-aware datetime")
        if not self.driver.indexed:
            raise RuntimeError("indices were not built")
        await self.llm_client.generate(episode_body)
        await self.embedder.create([episode_body])
        ep = SimpleNamespace(uuid=str(uuid.uuid4()), name=name, content=episode_body, group_id=group_id)
        edges = []
        for line in episode_body.splitlines():
            fact = line.split(": ", 1)[-1].strip()
            if fact:
                edges.append(SimpleNamespace(uuid=str(uuid.uuid4()), fact=fact, valid_at=reference_time, invalid_at=None, episodes=[ep.uuid], group_id=group_id))
        self.driver.groups.setdefault(group_id, []).extend(edges)
        return SimpleNamespace(episode=ep, edges=edges, nodes=[])

    async def search(self, query, group_ids=None, num_results=10, **kw):
        q = _words(query)
        hits = []
        for g in group_ids or []:
            for e in self.driver.groups.get(g, []):
                s = len(q & _words(e.fact))
                if s:
                    hits.append((s, e))
        hits.sort(key=lambda h: -h[0])
        return [e for _, e in hits[:num_results]]
