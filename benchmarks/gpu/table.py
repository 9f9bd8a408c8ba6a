"""The README's markdown tables from the JSON rows `run_device.sh` wrote.

    python benchmarks/gpu/table.py rows.jsonl [probe.jsonl]

Columns: tistudio as it is; as before the 2026-11-25 changes (`BENCH_UNROLL=0 BENCH_CHECKS=1`:
serial loops not unrolled, 256 invocations per workgroup, naga's runtime checks); with naga's
checks only (`BENCH_CHECKS=1`); with grid-stride loops unrolled by two (`BENCH_GRID_UNROLL=2`,
not the default); Taichi Vulkan and CUDA; tistudio's share of the device copy's bandwidth; and
tistudio against Taichi Vulkan (a ratio of times: above 1 is faster). A wrong result is marked.
"""

import json
import sys

COLUMNS = ("tistudio", "before", "checks", "grid2", "taichi vulkan", "taichi cuda")
HEAD = (
    "tistudio",
    "before (no unroll, wg 256, naga checks)",
    "naga checks only",
    "grid-stride unroll 2",
    "Taichi Vulkan",
    "Taichi CUDA",
)


def framework(row: dict) -> str:
    name = row["framework"]
    if not name.startswith("tistudio"):
        return name
    for suffix, column in (
        (" groups=", "tuning"),
        (" checks no-unroll", "before"),
        (" grid-unroll=2", "grid2"),
        (" checks", "checks"),
    ):
        if suffix in name:
            return column
    return "tistudio"


def cell(row: dict | None) -> str:
    if row is None:
        return "—"
    ms = row["batched_ms"]
    if "gbps" in row:
        text = f"{ms:.3f} ms, {row['gbps']:.0f} GB/s"
    elif "ginteractions_per_s" in row:
        text = f"{ms:.3f} ms, {row['ginteractions_per_s']:.1f} G pairs/s"
    else:
        text = f"{ms * 1e3:.1f} µs (sync {row['sync_ms'] * 1e3:.0f} µs)"
    return text if row.get("check", True) else f"{text}, **wrong**"


def main() -> None:
    rows = [json.loads(line) for line in open(sys.argv[1]) if line.startswith("{")]
    copy = next((r["gbps"] for r in rows if r.get("case", "").startswith("copy")), None)
    cases: dict[str, dict[str, dict]] = {}
    for row in rows:
        if "case" in row and not row["case"].startswith("copy"):
            cases.setdefault(row["case"], {})[framework(row)] = row
    head = ["case", *HEAD, "tistudio / copy", "tistudio vs Taichi Vulkan"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    reference = f"{copy:.0f} GB/s = 100 %" if copy else "not measured"
    print("| copy 400 MB (torch `copy_`) |" + " — |" * len(COLUMNS) + f" {reference} | — |")
    for case, found in cases.items():
        ours, vulkan = found.get("tistudio"), found.get("taichi vulkan")
        share = f"{ours['gbps'] / copy:.0%}" if ours and copy and "gbps" in ours else "—"
        ratio = f"{vulkan['batched_ms'] / ours['batched_ms']:.2f}×" if ours and vulkan else "—"
        cells = [cell(found.get(c)) for c in COLUMNS]
        print(f"| {case} | " + " | ".join(cells) + f" | {share} | {ratio} |")
    if len(sys.argv) > 2:
        probes(sys.argv[2])


def probes(path: str) -> None:
    """The probes' rows: stencil variants (GB/s) and n-body variants (G pairs/s)."""
    rows = [json.loads(line) for line in open(path) if line.startswith("{")]
    for kind, unit, key in (("stencil", "GB/s", "gbps"), ("n-body", "G pairs/s", "gpairs")):
        print()
        print(f"| {kind} shader variant | ms | {unit} |")
        print("|---|---|---|")
        for row in rows:
            if "ms" in row and (row.get("probe") == "n-body") == (kind == "n-body"):
                print(f"| {row['variant']} | {row['ms']:.3f} | {row[key]:.0f} |")


if __name__ == "__main__":
    main()
