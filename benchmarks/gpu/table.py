"""The README's markdown table from the JSON rows `run_device.sh` wrote.

    python benchmarks/gpu/table.py rows.jsonl [probe.jsonl]

Columns: tistudio (vec4 loops, large dispatches submitted at once), tistudio without vec4
(`BENCH_VEC4=0`), tistudio submitting only when the host waits (`BENCH_EAGER=0`), Taichi Vulkan
and CUDA, tistudio's share of the device copy's bandwidth, and tistudio against Taichi Vulkan
(a ratio of times: above 1 is faster). A wrong result is marked as such.
"""

import json
import sys

COLUMNS = ("tistudio", "tistudio scalar", "tistudio lazy", "taichi vulkan", "taichi cuda")


def framework(row: dict) -> str:
    name = row["framework"]
    if name.startswith("tistudio"):
        if " groups=" in name:  # a tuning run: not in the table
            return "tistudio tuning"
        if name.endswith(" lazy"):
            return "tistudio lazy"
        return "tistudio scalar" if name.endswith(" scalar") else "tistudio"
    return name


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
    head = ["case", "tistudio", "tistudio, no vec4", "tistudio, no eager submit"]
    head += ["Taichi Vulkan", "Taichi CUDA"]
    head += ["tistudio / copy", "tistudio vs Taichi Vulkan"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    reference = f"{copy:.0f} GB/s = 100 %" if copy else "not measured"
    print(f"| copy 400 MB (torch `copy_`) | — | — | — | — | — | {reference} | — |")
    for case, found in cases.items():
        ours, vulkan = found.get("tistudio"), found.get("taichi vulkan")
        share = f"{ours['gbps'] / copy:.0%}" if ours and copy and "gbps" in ours else "—"
        ratio = f"{vulkan['batched_ms'] / ours['batched_ms']:.2f}×" if ours and vulkan else "—"
        cells = [cell(found.get(c)) for c in COLUMNS]
        print(f"| {case} | " + " | ".join(cells) + f" | {share} | {ratio} |")
    if len(sys.argv) > 2:
        print()
        print("| stencil shader variant | ms | GB/s |")
        print("|---|---|---|")
        for line in open(sys.argv[2]):
            if line.startswith("{"):
                row = json.loads(line)
                print(f"| {row['variant']} | {row['ms']:.3f} | {row['gbps']:.0f} |")


if __name__ == "__main__":
    main()
