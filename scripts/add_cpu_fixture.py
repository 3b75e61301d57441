"""Record this machine as a CPU of the test corpus: ``tests/fixtures/cpus/NAME/``.

    .venv/bin/python scripts/add_cpu_fixture.py NAME [--from-summary FILE]

Writes ``cpuinfo.txt`` (this machine's /proc/cpuinfo, first processor block per core
kept), and ``machine.json`` with the cache sizes (sysfs), the logical CPUs and the probe
results (the probe cache, measured if absent; or those of a saved summary with
``--from-summary``).  ``machine.json``'s ``expect`` is left for you to fill in from what you
measured by hand (see ``tests/fixtures/cpus/README.md``): the tests replay every
machine-derived decision against it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from overhead_tui.machine.caches import read_cache_sizes  # noqa: E402
from overhead_tui.summary.codec import to_json  # noqa: E402


def _refuse(message: str) -> int:
    print(f"add_cpu_fixture: error: {message}", file=sys.stderr)
    return 2


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("name", help="folder name, e.g. zen4-avx512-2vcpu")
    parser.add_argument("--from-summary", type=Path, help="take the probes of this summary.json")
    args = parser.parse_args()
    name = args.name.strip()
    if not name or name != Path(name).name or name in (".", ".."):
        return _refuse(
            f"{args.name!r} is not a folder name; fix: give a plain name such as "
            "zen4-avx512-2vcpu (no '/', not empty)"
        )
    folder = ROOT / "tests" / "fixtures" / "cpus" / name
    if folder.exists():
        return _refuse(f"{folder} exists already; fix: choose another name")
    if args.from_summary:
        try:
            probes = json.loads(args.from_summary.read_text(encoding="utf-8"))["probes"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            return _refuse(
                f"cannot take probes from {args.from_summary} ({type(exc).__name__}: {exc}); "
                "fix: give a run's summary.json"
            )
    else:
        from overhead_tui.engine.probe_runs import load_probes

        probes = to_json(load_probes(progress=lambda name: print(f"measuring {name} ...")))
    keep = ("value", "unit", "details", "samples")
    record = {
        "source": "recorded with scripts/add_cpu_fixture.py on the machine itself",
        "caches": read_cache_sizes(),
        "probes": {
            name: {k: p[k] for k in keep if p.get(k) is not None} for name, p in probes.items()
        },
        "expect": {},
    }
    folder.mkdir(parents=True)
    (folder / "cpuinfo.txt").write_text(Path("/proc/cpuinfo").read_text())
    (folder / "machine.json").write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    print(f"wrote {folder}; now fill in machine.json's expect from hand measurements")
    return 0


if __name__ == "__main__":
    sys.exit(main())
