"""arbor's Graphiti sidecar (paper §6.1, appendix C.2 "Graphiti"): drives
graphiti_core over protocol version 1 of baselines/sidecar/PROTOCOL.md.

Written against graphiti-core 0.29.x. Install: pip install "graphiti-core[kuzu]==0.29.*"
(the embedded Kuzu driver is the default; Neo4j 5.26 or FalkorDB by option).

Wiring (../../../../shared/notes/serving-and-bridges.md): OpenAIGenericClient on
arbor's chat endpoint in JSON-schema structured-output mode, OpenAIEmbedder on
the embed endpoint (BGE-M3, 1024-d), the OpenAI reranker client on the chat
endpoint. One Graphiti group per episode; every episode body is added with
add_episode(..., reference_time=<session time>, source=EpisodeType.message,
group_id=<episode>) and awaited, so flush knows ingestion is finished.
During BranchMemEval replay the graph is updated every 8 interactions (the
paper's rule; option update_every, which arbor sets from the benchmark);
otherwise every interaction is one Graphiti episode. Recall is
search(query, group_ids=[group], num_results=k): the facts (edges) first,
then the text of the episodes they came from.

Options (bridges.graphiti.options): driver (kuzu | neo4j | falkordb), db
(Kuzu folder; default a temporary one per process), uri, user,
password_env (Neo4j/FalkorDB), update_every.
"""

import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import arbor_sidecar as sc  # noqa: E402

INSTALL = 'pip install "graphiti-core[kuzu]==0.29.*" (see scripts/bridges/python/graphiti.py)'
gc = sc.need("graphiti_core", "graphiti", INSTALL)
from graphiti_core import Graphiti  # noqa: E402
from graphiti_core.cross_encoder.openai_reranker_client import OpenAIRerankerClient  # noqa: E402
from graphiti_core.embedder.openai import OpenAIEmbedder, OpenAIEmbedderConfig  # noqa: E402
from graphiti_core.llm_client.config import LLMConfig  # noqa: E402
from graphiti_core.llm_client.openai_generic_client import OpenAIGenericClient  # noqa: E402
from graphiti_core.nodes import EpisodeType  # noqa: E402
from graphiti_core.utils.maintenance.graph_data_operations import clear_data  # noqa: E402


def group_of(episode):
    """Graphiti group ids allow letters, digits, dashes and underscores."""
    return "arbor_" + re.sub(r"[^A-Za-z0-9_-]", "_", episode)


class GraphitiBridge(sc.Bridge):
    system = "graphiti"
    library = "graphiti-core"
    written_against = "0.29"

    def hello(self, req):
        chat, embed = req["chat"], req["embed"]
        self.opts = req.get("options") or {}
        sc.count_openai(chat.get("temperature"))
        llm_cfg = LLMConfig(api_key=sc.api_key(chat), base_url=chat["base_url"], model=chat["model"], small_model=chat["model"])
        self.graphiti = None
        self.kw = dict(
            llm_client=OpenAIGenericClient(config=llm_cfg, structured_output_mode="json_schema"),
            embedder=OpenAIEmbedder(config=OpenAIEmbedderConfig(api_key=sc.api_key(embed), base_url=embed["base_url"],
                                                                embedding_model=embed["model"], embedding_dim=embed.get("dim") or 1024)),
            cross_encoder=OpenAIRerankerClient(config=llm_cfg),
        )
        self.every = max(int(self.opts.get("update_every") or 1), 1)
        self.group = ""

    def library_version(self):
        return sc.version_of(self.library, gc)

    async def _graph(self):
        if self.graphiti is not None:
            return self.graphiti
        driver = self.opts.get("driver", "kuzu")
        if driver == "kuzu":
            from graphiti_core.driver.kuzu_driver import KuzuDriver
            db = self.opts.get("db") or os.path.join(tempfile.mkdtemp(prefix="arbor-graphiti-"), "graph.kuzu")
            g = Graphiti(graph_driver=KuzuDriver(db=db), **self.kw)
        elif driver == "neo4j":
            g = Graphiti(self.opts["uri"], self.opts.get("user", "neo4j"), os.environ.get(self.opts.get("password_env", ""), ""), **self.kw)
        elif driver == "falkordb":
            from graphiti_core.driver.falkordb_driver import FalkorDriver
            g = Graphiti(graph_driver=FalkorDriver(uri=self.opts.get("uri")), **self.kw)
        else:
            raise ValueError(f"option driver {driver!r} is not one of kuzu, neo4j, falkordb")
        await g.build_indices_and_constraints()
        self.graphiti = g
        return g

    async def reset(self, episode):
        g = await self._graph()
        if self.group:
            await clear_data(g.driver, group_ids=[self.group])
        self.group = group_of(episode) if episode else ""
        if self.group:
            await clear_data(g.driver, group_ids=[self.group])
        self.pending, self.interactions, self.failed = [], 0, 0
        self.episodes = {}  # Graphiti episode uuid -> (interaction ids, body, time)
        self.edges = 0

    async def _add(self, batch):
        body = "\n".join(sc.transcript(i) for i in batch)
        t = sc.parse_time(batch[-1].get("time"))
        name = batch[0]["id"] if len(batch) == 1 else f"{batch[0]['id']}..{batch[-1]['id']}"
        kw = dict(name=name, episode_body=body, source_description="conversation", source=EpisodeType.message, group_id=self.group)
        if t is not None:
            kw["reference_time"] = t
        else:
            from datetime import datetime, timezone
            kw["reference_time"] = datetime.now(timezone.utc)
        try:
            res = await self.graphiti.add_episode(**kw)
        except Exception:
            self.failed += len(batch)
            raise
        self.episodes[res.episode.uuid] = ([i["id"] for i in batch], body, batch[-1].get("time", ""))
        self.edges += len(getattr(res, "edges", []) or [])

    async def commit(self, inter):
        if not self.group:
            raise RuntimeError("commit before reset: no episode")
        self.interactions += 1
        self.pending.append(inter)
        if len(self.pending) >= self.every:
            batch, self.pending = self.pending, []
            await self._add(batch)
        return {}

    def flush(self):
        # add_episode is awaited in commit: nothing is in flight. Buffered
        # interactions wait for their batch of update_every.
        return {"interactions": self.interactions, "pending": len(self.pending), "failed": self.failed, "units": self.edges}

    async def recall(self, query, time, k, budget):
        if not self.group or not self.episodes:
            return {"items": []}
        edges = await self.graphiti.search(query, group_ids=[self.group], num_results=k)
        facts, texts, seen = [], [], set()
        for e in edges:
            srcs = []
            for uuid in getattr(e, "episodes", []) or []:
                ep = self.episodes.get(uuid)
                if ep is None:
                    continue
                srcs.extend(ep[0])
                if uuid not in seen:
                    seen.add(uuid)
                    texts.append({"text": ep[1], "score": 0, "time": ep[2], "sources": ep[0], "channel": "turn"})
            if not srcs:
                continue  # a fact from outside this episode's ingestion
            when = getattr(e, "valid_at", None)
            facts.append({"text": e.fact, "score": float(getattr(e, "score", 0) or 0), "time": sc.format_time(when), "sources": srcs, "channel": "fact"})
        return {"items": facts + texts}


if __name__ == "__main__":
    sc.run(GraphitiBridge())
