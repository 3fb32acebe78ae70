"""Planning beside Krippendorff's published minimum sample sizes: for two coders, nominal codes
of 2 and 4 equally frequent levels (least frequent share .5 and .25) and alpha_min .667 and
.800, the units ``sense7-coder plan`` gives (the interval's lower end reaching alpha_min in
80% of seeded simulated studies, true alpha alpha_min + .1) and Krippendorff's (2019, after
Bloch & Kraemer 1989, eq. 3.7; p = .05) minimum, in values and in units (values / 2 coders).
The table goes into VALIDATION.md between its planning markers.

    nice -n 10 python benchmarks/planning_table.py --studies 200 --draws 500
"""

from __future__ import annotations

import argparse
from pathlib import Path

from sense7_coder.domain.agreement.planning import (
    krippendorff_minimum,
    units_needed,
)

ROOT = Path(__file__).resolve().parent.parent
START, END = "<!-- planning: benchmarks/planning_table.py -->", "<!-- end planning -->"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--studies", type=int, default=200)
    parser.add_argument("--draws", type=int, default=500)
    parser.add_argument("--output", type=Path, default=ROOT / "VALIDATION.md")
    args = parser.parse_args(argv)
    rows = []
    for alpha_min in (0.667, 0.800):
        for levels in (2, 4):
            plan = units_needed(alpha_min, round(alpha_min + 0.1, 3), coders=2, levels=levels,
                                probability=0.8, studies=args.studies, draws=args.draws)
            published = krippendorff_minimum(alpha_min, 0.05, 1 / levels)
            rows.append((alpha_min, levels, plan.units, published))
            print(rows[-1], flush=True)
    lines = [START, "", "## Planning against Krippendorff's minimum sample sizes", "",
             f"Two coders, nominal codes with equally frequent levels. *plan*: the units with "
             f"which alpha's 95% interval (the default method) reaches alpha_min in 80% of "
             f"{args.studies} seeded simulated studies ({args.draws} draws each) when the "
             "true alpha is alpha_min + .1. *Krippendorff*: the published minimum (2019, after "
             "Bloch & Kraemer 1989, eq. 3.7; p = .05, least frequent value's share 1/levels), "
             "in values and, for two coders, units. The two answer different questions (a "
             "two-sided 95% interval clearing a line with 80% probability at an expected "
             "alpha; alpha told from alpha_min at a one-sided level of significance, for "
             "binary-like data with the least frequent value's share) and the table shows "
             "they do not agree: the plan asks for several times the units, and it falls "
             "where Krippendorff's rises (more levels and a higher alpha_min at a fixed "
             "margin of .1 make alpha vary less here, while Krippendorff's formula keys on "
             "the rarest value). Read Krippendorff's figure as the minimum below which no "
             "conclusion is possible and the plan as the units a round needs to show a code "
             "reliable with the stated probability. `tests/test_planning.py` holds the "
             "formula to the published 139 and 81 (pc = .25, alpha_min .800 and .667).",
             "", "| alpha_min | levels | plan (units) | Krippendorff (values) | "
             "Krippendorff (units, 2 coders) |", "|---|---|---|---|---|"]
    for alpha_min, levels, units, published in rows:
        lines.append(f"| {alpha_min:.3f} | {levels} | {units} | {published} | "
                     f"{(published + 1) // 2} |")
    lines += ["", END]
    text = args.output.read_text(encoding="utf-8")
    section = "\n".join(lines)
    if START in text:
        head, rest = text.split(START, 1)
        text = head + section + (rest.split(END, 1)[1] if END in rest else "")
        args.output.write_text(text, encoding="utf-8")
    else:
        write_section_plain(args.output, section)
    print(f"wrote {args.output}")


def write_section_plain(path: Path, section: str) -> None:
    text = path.read_text(encoding="utf-8").rstrip("\n") + "\n\n" + section + "\n"
    path.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
