#!/usr/bin/env python3
"""Static checks behind .ci/deploy-check (run with the check's venv Python).

  deploy_check.py manifests RENDERED.yaml...   invariants of rendered kustomize output
  deploy_check.py dockerfile deploy/Dockerfile  builder/runtime wiring of the image
  deploy_check.py cargo Cargo.toml deploy/Dockerfile
                                                the binary and every Cargo target reach the build

Each prints problems to stdout, one per line, then a one-line summary; exit 1 on
any problem. Schema validity is kubernetes-validate's job, not this file's.
"""

from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path

BINARY = "matchgrid"
GRPC_PORT = 50051
METRICS_PORT = 9090
# Margin between (preStop sleep + drain) and the kubelet's SIGKILL.
MIN_SHUTDOWN_HEADROOM_S = 5


class Problems(list):
    def check(self, ok: bool, msg: str) -> bool:
        if not ok:
            self.append(msg)
        return ok


def finish(problems: Problems, summary: str) -> int:
    for p in problems:
        print(f"- {p}")
    print(f"{len(problems)} problem(s)" if problems else summary)
    return 1 if problems else 0


# ---------------------------------------------------------------- manifests

def duration_s(text: str) -> float:
    """Parse the service's duration syntax ("20s", "500ms", "5m", "1m30s")."""
    units = {"ms": 0.001, "s": 1, "m": 60, "h": 3600}
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|s|m|h)", text)
    if not parts or "".join(n + u for n, u in parts) != text:
        raise ValueError(f"not a duration: {text!r}")
    return sum(float(n) * units[u] for n, u in parts)


def cpu_millis(q: str) -> float:
    q = str(q)
    return float(q[:-1]) if q.endswith("m") else float(q) * 1000


def mem_bytes(q: str) -> float:
    q = str(q)
    for suf, mul in (("Ki", 2**10), ("Mi", 2**20), ("Gi", 2**30), ("Ti", 2**40),
                     ("k", 1e3), ("M", 1e6), ("G", 1e9), ("T", 1e12)):
        if q.endswith(suf):
            return float(q[: -len(suf)]) * mul
    return float(q)


def selects(selector: dict | None, labels: dict) -> bool:
    if not selector:
        return False
    return all(labels.get(k) == v for k, v in selector.items())


def check_manifests(paths: list[str]) -> int:
    import yaml  # from the venv (kubernetes-validate depends on PyYAML)

    problems = Problems()
    total = 0
    for path in paths:
        name = Path(path).stem
        docs = [d for d in yaml.safe_load_all(Path(path).read_text()) if d]
        total += len(docs)
        by_kind: dict[str, list[dict]] = {}
        for d in docs:
            by_kind.setdefault(d.get("kind", "?"), []).append(d)
        p = lambda ok, msg: problems.check(ok, f"{name}: {msg}")  # noqa: E731

        deps = by_kind.get("Deployment", [])
        if not p(len(deps) == 1, f"expected 1 Deployment, found {len(deps)}"):
            continue
        dep = deps[0]
        spec = dep["spec"]
        tmpl = spec["template"]
        pod = tmpl["spec"]
        pod_labels = tmpl["metadata"].get("labels", {})
        p(selects(spec["selector"].get("matchLabels"), pod_labels),
          "Deployment selector does not match its pod template labels")

        ctrs = [c for c in pod["containers"] if c["name"] == BINARY]
        if not p(len(ctrs) == 1, f"no container named {BINARY!r}"):
            continue
        c = ctrs[0]
        env = {e["name"]: e for e in c.get("env", [])}
        ports = {pt.get("name"): pt["containerPort"] for pt in c.get("ports", [])}
        p(ports.get("grpc") == GRPC_PORT, f"container port 'grpc' must be {GRPC_PORT}")
        p(ports.get("metrics") == METRICS_PORT,
          f"container port 'metrics' must be {METRICS_PORT}")
        listen = env.get("MATCHGRID_LISTEN", {}).get("value", f"0.0.0.0:{GRPC_PORT}")
        p(listen.rsplit(":", 1)[-1] == str(ports.get("grpc")),
          f"MATCHGRID_LISTEN {listen} disagrees with the grpc container port")
        mlisten = env.get("MATCHGRID_METRICS_LISTEN", {}).get("value",
                                                              f"0.0.0.0:{METRICS_PORT}")
        p(mlisten.rsplit(":", 1)[-1] == str(ports.get("metrics")),
          f"MATCHGRID_METRICS_LISTEN {mlisten} disagrees with the metrics container port")
        ann = tmpl["metadata"].get("annotations", {})
        p(ann.get("prometheus.io/scrape") == "true"
          and ann.get("prometheus.io/port") == str(ports.get("metrics")),
          "prometheus.io scrape annotations missing or pointing at the wrong port")
        p(env.get("MATCHGRID_LOG_FORMAT", {}).get("value") == "json",
          "MATCHGRID_LOG_FORMAT must be json")
        ref = env.get("MATCHGRID_WORKER_THREADS", {}).get("valueFrom", {}).get(
            "resourceFieldRef", {})
        p(ref.get("resource") == "limits.cpu",
          "MATCHGRID_WORKER_THREADS should come from resourceFieldRef limits.cpu")

        # Probes: all native gRPC, on the plaintext health-only port when one is
        # set (its own thread answers them when the workers are saturated; and
        # kubelet gRPC probes cannot do TLS, so TLS requires it), else on the
        # serving port.
        tls = "MATCHGRID_TLS_CERT" in env
        hlisten = env.get("MATCHGRID_HEALTH_LISTEN", {}).get("value")
        if hlisten is not None:
            p(hlisten.rsplit(":", 1)[-1] == str(ports.get("health")),
              f"MATCHGRID_HEALTH_LISTEN {hlisten} disagrees with the health container port")
        p(not tls or hlisten is not None,
          "MATCHGRID_TLS_CERT set without MATCHGRID_HEALTH_LISTEN: gRPC probes cannot do TLS")
        probe_port = ports.get("health") if hlisten is not None else ports.get("grpc")
        for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
            grpc = c.get(probe, {}).get("grpc")
            p(bool(grpc) and grpc.get("port") == probe_port,
              f"{probe} must be a grpc probe on port {probe_port}")

        # Shutdown budget: preStop sleep + drain must fit in the grace period.
        sleep = c.get("lifecycle", {}).get("preStop", {}).get("sleep", {}).get("seconds")
        p(isinstance(sleep, int) and sleep > 0, "preStop.sleep.seconds missing")
        try:
            drain = duration_s(env.get("MATCHGRID_SHUTDOWN_GRACE", {}).get("value", "20s"))
        except ValueError as e:
            p(False, str(e))
            drain = 0
        tgps = pod.get("terminationGracePeriodSeconds", 30)
        p(tgps >= (sleep or 0) + drain + MIN_SHUTDOWN_HEADROOM_S,
          f"terminationGracePeriodSeconds {tgps} < preStop {sleep}s + drain {drain:g}s"
          f" + {MIN_SHUTDOWN_HEADROOM_S}s headroom")

        # Security.
        psc = pod.get("securityContext", {})
        p(psc.get("runAsNonRoot") is True, "pod runAsNonRoot must be true")
        p(psc.get("runAsUser") == 65532, "pod runAsUser must be 65532")
        p(psc.get("seccompProfile", {}).get("type") == "RuntimeDefault",
          "pod seccompProfile must be RuntimeDefault")
        csc = c.get("securityContext", {})
        p(csc.get("readOnlyRootFilesystem") is True, "readOnlyRootFilesystem must be true")
        p(csc.get("allowPrivilegeEscalation") is False,
          "allowPrivilegeEscalation must be false")
        p(csc.get("capabilities", {}).get("drop") == ["ALL"], "capabilities must drop ALL")
        p(pod.get("automountServiceAccountToken") is False,
          "pod automountServiceAccountToken must be false")
        sa_name = pod.get("serviceAccountName")
        sas = [s for s in by_kind.get("ServiceAccount", [])
               if s["metadata"]["name"] == sa_name]
        p(len(sas) == 1 and sas[0].get("automountServiceAccountToken") is False,
          f"ServiceAccount {sa_name!r} missing or mounts its token")

        # Resources.
        res = c.get("resources", {})
        req, lim = res.get("requests", {}), res.get("limits", {})
        if p(all(k in req and k in lim for k in ("cpu", "memory")),
             "cpu and memory requests and limits are all required"):
            p(cpu_millis(req["cpu"]) <= cpu_millis(lim["cpu"]), "cpu request > limit")
            p(mem_bytes(req["memory"]) <= mem_bytes(lim["memory"]),
              "memory request > limit")

        image = c.get("image", "")
        p("@sha256:" in image or ":" in image.rsplit("/", 1)[-1],
          f"image {image!r} has neither tag nor digest")

        # Services: one ClusterIP, one headless, both selecting the pods.
        svcs = by_kind.get("Service", [])
        headless = [s for s in svcs if s["spec"].get("clusterIP") == "None"]
        normal = [s for s in svcs if s["spec"].get("clusterIP") != "None"]
        p(len(headless) == 1 and len(normal) == 1,
          "expected one ClusterIP and one headless Service")
        for s in svcs:
            sname = s["metadata"]["name"]
            p(selects(s["spec"].get("selector"), pod_labels),
              f"Service {sname} does not select the pods")
            sp = {pt["name"]: pt for pt in s["spec"].get("ports", [])}
            grpc_proto = "https" if tls else "kubernetes.io/h2c"
            for pname, proto in (("grpc", grpc_proto), ("metrics", "http")):
                pt = sp.get(pname)
                if p(pt is not None, f"Service {sname} lacks port {pname}"):
                    p(pt.get("appProtocol") == proto,
                      f"Service {sname} port {pname} appProtocol must be {proto}")
                    tp = pt.get("targetPort")
                    p(tp in ports or tp in ports.values(),
                      f"Service {sname} port {pname} targets unknown port {tp!r}")

        # HPA owns replicas; PDB covers the pods.
        hpas = by_kind.get("HorizontalPodAutoscaler", [])
        if p(len(hpas) == 1, "expected one HorizontalPodAutoscaler"):
            tgt = hpas[0]["spec"]["scaleTargetRef"]
            p(tgt.get("kind") == "Deployment"
              and tgt.get("name") == dep["metadata"]["name"],
              "HPA scaleTargetRef does not name the Deployment")
            p(hpas[0]["spec"].get("minReplicas", 1) >= 2,
              "HPA minReplicas < 2 leaves no capacity during a disruption")
            p("replicas" not in spec,
              "Deployment sets spec.replicas although an HPA manages it")
        pdbs = by_kind.get("PodDisruptionBudget", [])
        p(len(pdbs) == 1 and selects(pdbs[0]["spec"].get("selector", {})
                                     .get("matchLabels"), pod_labels),
          "expected one PodDisruptionBudget selecting the pods")

    return finish(problems, f"{len(paths)} rendering(s), {total} objects: invariants hold")


# --------------------------------------------------------------- dockerfile

def dockerfile_instructions(path: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, with continuations joined, comments dropped."""
    out, buf = [], ""
    for raw in Path(path).read_text().splitlines():
        line = raw.strip()
        if not buf and (not line or line.startswith("#")):
            continue
        if line.endswith("\\"):
            buf += line[:-1] + " "
            continue
        buf += line
        word, _, rest = buf.strip().partition(" ")
        out.append((word.upper(), rest.strip()))
        buf = ""
    return out


def stages(path: str) -> list[dict]:
    result: list[dict] = []
    for ins, args in dockerfile_instructions(path):
        if ins == "FROM":
            m = re.match(r"(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?", args, re.I)
            result.append({"image": m.group(1), "name": (m.group(2) or "").lower(),
                           "workdir": "/", "ins": []})
        elif result:
            if ins == "WORKDIR":
                wd = args.strip("\"'")
                result[-1]["workdir"] = wd if wd.startswith("/") else \
                    str(Path(result[-1]["workdir"]) / wd)
            result[-1]["ins"].append((ins, args))
    return result


def split_copy(args: str) -> tuple[dict, list[str]]:
    if args.startswith("["):
        words = json.loads(args)
        flags = {}
    else:
        words = shlex.split(args)
        flags = {}
        while words and words[0].startswith("--"):
            k, _, v = words.pop(0)[2:].partition("=")
            flags[k] = v
    return flags, words


def check_dockerfile(path: str) -> int:
    problems = Problems()
    st = stages(path)
    builders = [s for s in st if s["name"] == "builder"]
    if not problems.check(len(builders) == 1 and len(st) >= 2,
                          "need a stage named 'builder' and a runtime stage after it"):
        return finish(problems, "")
    builder, runtime = builders[0], st[-1]
    problems.check(builder["image"].startswith("rust:") and ":" in builder["image"]
                   and not builder["image"].endswith(":latest"),
                   f"builder image {builder['image']} should be a pinned rust: tag")
    problems.check(any(i == "RUN" and "cargo build" in a and "--release" in a
                       and "--locked" in a for i, a in builder["ins"]),
                   "builder never runs `cargo build --release --locked`")

    copies = [split_copy(a) for i, a in runtime["ins"] if i == "COPY"]
    from_builder = [(f, w) for f, w in copies if f.get("from", "").lower() == "builder"]
    entry = [a for i, a in runtime["ins"] if i == "ENTRYPOINT"]
    src = dst = ""
    if problems.check(len(from_builder) == 1 and len(from_builder[0][1]) == 2,
                      "runtime stage needs exactly one `COPY --from=builder SRC DST`"):
        src, dst = from_builder[0][1]
        problems.check(src.endswith(f"target/release/{BINARY}"),
                       f"COPY --from=builder source {src} does not end with "
                       f"target/release/{BINARY}")
        expected = str(Path(builder["workdir"]) / "target/release" / BINARY)
        problems.check(src == expected,
                       f"COPY --from=builder source {src} is not under the builder "
                       f"WORKDIR ({expected})")
    if problems.check(len(entry) == 1 and entry[0].startswith("["),
                      "runtime stage needs one exec-form ENTRYPOINT"):
        problems.check(json.loads(entry[0])[0] == dst,
                       f"ENTRYPOINT {entry[0]} does not run the copied binary {dst}")
    users = [a for i, a in runtime["ins"] if i == "USER"]
    problems.check(bool(users) and users[-1].split(":")[0] not in ("root", "0"),
                   "runtime stage must end as a non-root USER")
    exposed = " ".join(a for i, a in runtime["ins"] if i == "EXPOSE").split()
    problems.check(str(GRPC_PORT) in exposed and str(METRICS_PORT) in exposed,
                   f"runtime stage should EXPOSE {GRPC_PORT} and {METRICS_PORT}")
    return finish(problems, f"{builder['image']} -> {runtime['image']}: "
                            f"{src} -> {dst}")


# -------------------------------------------------------------------- cargo

def check_cargo(cargo_toml: str, dockerfile: str) -> int:
    import tomllib

    problems = Problems()
    root = Path(cargo_toml).parent
    manifest = tomllib.loads(Path(cargo_toml).read_text())
    pkg = manifest.get("package", {})
    bins = manifest.get("bin", [])
    names = [b.get("name") for b in bins]
    if names:
        problems.check(BINARY in names, f"Cargo.toml [[bin]] names {names} lack {BINARY!r}")
        how = f"[[bin]] name = {BINARY!r}"
    else:
        # No [[bin]] tables: cargo's implicit binary is src/main.rs, named after
        # the package, unless autobins is off.
        problems.check(pkg.get("name") == BINARY and (root / "src/main.rs").exists()
                       and pkg.get("autobins", True),
                       f"Cargo.toml declares no [[bin]] named {BINARY!r}")
        how = f"implicit bin (package {pkg.get('name')!r}, src/main.rs)"

    # Every file cargo needs to load and build the package must be in the
    # Docker build: declared targets (bench/test/example tables too, since an
    # explicit target without its file fails), the build script, the protos.
    needed = {"Cargo.toml", "Cargo.lock"}
    build = pkg.get("build", "build.rs" if (root / "build.rs").exists() else None)
    if build:
        needed.add(build)
    lib = manifest.get("lib")
    if lib is not None or (root / "src/lib.rs").exists():
        needed.add((lib or {}).get("path", "src/lib.rs"))
    for b in bins:
        needed.add(b.get("path", f"src/bin/{b['name']}.rs"))
    for kind, folder in (("bench", "benches"), ("test", "tests"), ("example", "examples")):
        for t in manifest.get(kind, []):
            default = f"{folder}/{t['name']}.rs"
            if not (root / default).exists() and (root / folder / t["name"] / "main.rs").exists():
                default = f"{folder}/{t['name']}/main.rs"
            needed.add(t.get("path", default))
    if (root / "proto").is_dir():
        needed.add("proto")
    # Files pulled in at compile time, e.g. #![doc = include_str!("../README.md")].
    sources = list((root / "src").rglob("*.rs")) if (root / "src").is_dir() else []
    if build and (root / build).is_file():
        sources.append(root / build)
    for rs in sources:
        for lit in re.findall(r'include_(?:str|bytes)!\s*\(\s*"([^"]+)"', rs.read_text()):
            target = (rs.parent / lit).resolve()
            try:
                needed.add(str(target.relative_to(root.resolve())))
            except ValueError:
                problems.append(f"{rs.relative_to(root)} includes {lit}, outside the crate")

    copied: list[str] = []
    for st in stages(dockerfile):
        for ins, args in st["ins"]:
            if ins in ("COPY", "ADD"):
                flags, words = split_copy(args)
                if "from" not in flags:
                    copied += [w.rstrip("/") for w in words[:-1]]
    for path in sorted(needed):
        problems.check((root / path).exists(), f"{path} is needed by Cargo.toml but missing")
        problems.check(any(path == c or path.startswith(c + "/") or c == "."
                           for c in copied),
                       f"{path} is needed by the build but no COPY brings it in")
    ignore = root / ".dockerignore"
    if ignore.exists():
        pats = [line.strip().rstrip("/") for line in ignore.read_text().splitlines()
                if line.strip() and not line.startswith("#")]
        for path in sorted(needed):
            top = path.split("/", 1)[0]
            problems.check(top not in pats and path not in pats,
                           f"{path} is excluded from the build context by .dockerignore")
    return finish(problems, f"{how}; {len(needed)} build inputs present and copied")


def main(argv: list[str]) -> int:
    if len(argv) >= 2 and argv[0] == "manifests":
        return check_manifests(argv[1:])
    if len(argv) == 2 and argv[0] == "dockerfile":
        return check_dockerfile(argv[1])
    if len(argv) == 3 and argv[0] == "cargo":
        return check_cargo(argv[1], argv[2])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
