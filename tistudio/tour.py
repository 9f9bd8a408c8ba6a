"""`python -m tistudio.tour`: compile one kernel, print what every pass did, and run it."""

from __future__ import annotations

import tistudio as ti


def main() -> None:
    ti.init(arch=ti.cpu)
    n = 16
    x = ti.field(ti.f32, shape=n)
    total = ti.field(ti.f32, shape=())

    @ti.kernel
    def fill_and_sum(scale: ti.f32):
        for i in x:
            x[i] = ti.sqrt(i * scale)
        for i in x:
            total[None] += x[i]

    report = fill_and_sum.compile_report(2.0)
    for record in report.passes:
        print(f"=== {record.name}  ({record.ms:.2f} ms, {record.stmt_count} statements)")
        print(record.ir_text)
    fill_and_sum(2.0)
    print("x =", x.to_numpy())
    print("sum =", total[None])
    print(fill_and_sum.cache_info())


if __name__ == "__main__":
    main()
