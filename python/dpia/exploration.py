"""dpia.explore: `dpia explore` (docs/explore.md) from Python, its
candidates run here or on a Ray cluster.

    x = dpia.explore(src, "scalHL", {"N": 65536}, budget=20, seed=7)
    x.ok, x.best_program                   # the fastest that agrees with the reference, as dpia source
    x.report["best"]["strategy"]           # "chunk C=256": the report of dpia explore --json
    x = dpia.explore(src, "scalHL", {"N": 65536}, address="127.0.0.1:6379")   # on a Ray cluster
    x.workers[x.report["best"]["id"]]      # where it ran: {"node", "ip", "host", "pid", "device"}

The search is libdpia's, the one `dpia explore` runs (app/explore.c): the
same space, the same seed's draw, sampling then local search, the same
derivations and checks; only where the candidates run differs.  With no
evaluator libdpia times them itself, one at a time on this machine's
device, exactly as the command does.  With one (address=, or evaluate=),
libdpia hands it each batch of candidates that check (DpiaExplore.evaluate,
include/dpia.h) and goes on with their times: on a Ray cluster each batch
is spread over Ray actors, one a CPU of the cluster, each translating
and timing on its own node's OpenCL device (platform, device), and the
fastest is checked against the reference interpreter by one of them.
"""
import json
import os
import socket

from . import _EVALUATE, _Explore, MissingPackageError, _process
from . import run as _run

__all__ = ["explore", "Exploration", "run_here", "RAY_REQUIREMENT"]

# the version of Ray the package is tested with (tools/setup.sh installs
# it in build/ray-venv); wheels for Python 3.9 to 3.13 on x86_64 Linux
RAY_REQUIREMENT = "ray==2.60.0"


class Exploration:
    """What dpia.explore gives: status (0 ok, 1 nothing found: E1106, ...),
    diagnostics, report (the JSON object of `dpia explore --json`, None when
    the request was refused), best_program (the best as dpia source with its
    derivation as a comment, None when none), and workers (evaluated
    elsewhere: {candidate id: where it last ran, {"host", "pid", "device",
    and on Ray "node" (its id) and "ip"}}; empty when run here by libdpia)."""

    def __init__(self, result, report, workers):
        self.status = result.status
        self.diagnostics = result.diagnostics
        self.report = report
        self.best_program = result.best
        self.workers = workers
        self.result = result

    @property
    def ok(self):
        return self.status == 0

    @property
    def best(self):
        """the best candidate of the report (a dict), or None"""
        return self.report["best"] if self.report else None

    def raise_for_status(self):
        self.result.raise_for_status()
        return self

    def __repr__(self):
        best = self.best
        return "<dpia.Exploration %s, %s>" % (self.result.status_name,
                                              "best %s (%.4f ms)" % (best["strategy"], best["min_ms"])
                                              if best else "no best")


def run_here(requests, sizes, seed=1, inputs="signed", platform=0, device=0):
    """Run each request ({"id", "strategy", "program", "kernel", "check",
    "repeat"}) on this machine's device as `dpia run` does: a list of
    answers {"id", "status", "min_ms", "median_ms", "reason", "worker"},
    in order.  The evaluator of a Ray actor, and of dpia.explore's
    evaluate=run_here (the same search through the evaluator interface,
    on this machine)."""
    answers = []
    for q in requests:
        r = _run(q["program"], q["kernel"], sizes, check=q["check"], verify=q["check"], repeat=q["repeat"],
                 seed=seed, inputs=inputs, platform=platform, device=device, name="<explored>", tune_cache="off")
        lo, mid = r.times or (0.0, 0.0)
        answers.append({"id": q["id"], "status": r.status, "min_ms": lo, "median_ms": mid,
                        "reason": (r.diagnostics[0].code or "") if r.diagnostics and r.status else "",
                        "worker": {"host": socket.gethostname(), "pid": os.getpid(),
                                   "device": (r.run or {}).get("device")}})
    return answers


class _Worker:
    """A Ray actor: one process of a node, its own libdpia and OpenCL
    context, running the candidates it is given one at a time"""

    def __init__(self, sizes, seed, inputs, platform, device):
        self.args = (sizes, seed, inputs, platform, device)

    def run(self, request):
        import ray
        from ray.util import get_node_ip_address
        answer = run_here([request], *self.args)[0]
        answer["worker"]["node"] = ray.get_runtime_context().get_node_id()
        answer["worker"]["ip"] = get_node_ip_address()
        return answer


def _import_ray():
    try:
        import ray
    except ImportError as e:
        raise MissingPackageError("ray", "dpia.explore(address=...), which evaluates candidates on a Ray cluster",
                                  "pip install '%s' (on every node of the cluster too)" % RAY_REQUIREMENT) from e
    return ray


class _RayEvaluator:
    """The candidates of each batch as calls on a pool of actors (_Worker),
    one a CPU of the cluster (or workers), each on its own device"""

    def __init__(self, ray, address, workers, sizes, seed, inputs, platform, device, runtime_env):
        self.ray = ray
        self.connected = not ray.is_initialized()
        self.actors = []
        if self.connected:
            ray.init(address=address, runtime_env=runtime_env, logging_level="WARNING", log_to_driver=False)
        try:
            n = workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
            actor = ray.remote(num_cpus=1)(_Worker)
            self.actors = [actor.remote(sizes, seed, inputs, platform, device) for _ in range(n)]
            from ray.util import ActorPool
            self.pool = ActorPool(self.actors)
        except BaseException:
            self.close()
            raise

    def __call__(self, requests):
        return list(self.pool.map(lambda a, q: a.run.remote(q), requests))

    def close(self):
        for a in self.actors:
            try:
                self.ray.kill(a)
            except Exception:  # a cluster gone: nothing left to end
                pass
        if self.connected:  # a cluster of its own address: left running, this driver disconnected
            self.ray.shutdown()


def explore(src, kernel, sizes, budget=60, jobs=None, address=None, seed=1, repeat=5, workers=None, evaluate=None,
            name="<python>", platform=0, device=0, inputs="signed", runtime_env=None, tries=None):
    """Explore the strategies of the high-level kernel of src at sizes
    ({"N": 65536}), as `dpia explore --json` does: budget seconds (or
    tries strategies tried, whichever ends it first: --tries), jobs
    candidates checked at once (and 4 * jobs a batch; None: 1, on Ray
    enough for a batch to busy every worker), the seed's draw, repeat
    timed launches.  An Exploration.

    address: a Ray cluster's ("127.0.0.1:6379", "auto"; Ray must be
    installed: MissingPackageError otherwise), whose workers (one actor a
    CPU of the cluster, or workers actors) translate and time the
    candidates on their own devices; each node needs this package and
    libdpia (DPIA_LIBRARY), or runtime_env giving them (ray.init's).  When
    Ray is already initialised in this process its connection is used.
    evaluate: instead, a function of a list of requests (dicts: "id",
    "strategy", "program", "kernel", "check", "repeat") returning their
    answers in order (dicts: "status", "min_ms", "median_ms", "reason"; see
    run_here).  Neither: libdpia times them here, one at a time.  An
    exception of the evaluator stops the search and is raised again here."""
    if address is not None and evaluate is not None:
        raise ValueError("dpia.explore: address (a Ray cluster) or evaluate, not both")
    ray_evaluator = None
    if address is not None:
        ray_evaluator = _RayEvaluator(_import_ray(), address, workers, sizes, seed, inputs, platform, device,
                                      runtime_env)
        evaluate = ray_evaluator
    workers_seen, failure = {}, []

    def callback(_user, runs, n):
        try:
            requests = [{"id": runs[i].id, "strategy": runs[i].strategy.decode(), "program": runs[i].program.decode(),
                         "kernel": runs[i].kernel.decode(), "check": bool(runs[i].check), "repeat": runs[i].repeat}
                        for i in range(n)]
            answers = evaluate(requests)
            if len(answers) != n:
                raise ValueError("dpia.explore: the evaluator answered %d of %d requests" % (len(answers), n))
            for i, a in enumerate(answers):
                runs[i].status = int(a["status"])
                runs[i].min_ms, runs[i].median_ms = float(a["min_ms"]), float(a["median_ms"])
                runs[i].reason = (a.get("reason") or "").encode()[:15]
                if a.get("worker"):
                    workers_seen[runs[i].id] = a["worker"]
            return 0
        except BaseException as e:  # noqa: B902 (raised again below, after libdpia has stopped)
            failure.append(e)
            return 1

    x = _Explore()
    if jobs is None:  # a batch is 4 * jobs candidates (app/explore.c): one at least a worker
        jobs = min(64, (len(ray_evaluator.actors) + 3) // 4) if ray_evaluator else 1
    x.budget_s, x.jobs, x.json = float(budget), int(jobs), 1
    if tries is not None:
        if int(tries) != tries or tries < 1:
            raise ValueError("dpia.explore: tries must be a positive whole number, not %r" % (tries,))
        x.max_tries = int(tries)
    if evaluate is not None:
        x.evaluate = _EVALUATE(callback)
    try:
        r = _process(src, "explore", kernel=kernel, emit=(), name=name, sizes=sizes, repeat=repeat, seed=seed,
                     platform=platform, device=device, inputs=inputs, explore=x)
    finally:
        if ray_evaluator is not None:
            ray_evaluator.close()
    if failure:
        raise failure[0]
    return Exploration(r, json.loads(r.text) if r.text.strip() else None, workers_seen)
