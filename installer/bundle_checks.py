"""Checks of the desktop bundle that `make bundle-check` runs with the developer venv's Python.

``compare-json A B [--ignore KEY]...``: the two JSON documents are equal, apart from keys named
with ``--ignore`` (at any depth); prints each difference by its path.
``check-png PATH [--min-size WxH]``: PATH is a PNG of at least that size, with a real picture
in it (many colours, not one flat fill).
``compare-png A B [--max-changed FRACTION]``: two pictures of the same size that differ in at
most that fraction of their pixels (the window drawn by the bundle and by the source install:
a missing font or style would change far more than the status bar's timings do).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def differences(a: Any, b: Any, ignore: frozenset[str] = frozenset(), path: str = "$") -> list[str]:
    """Where ``a`` and ``b`` differ, as ``path: a-value != b-value`` lines.

    Parameters
    ----------
    a, b : Any
        Decoded JSON values.
    ignore : frozenset of str
        Object keys left out of the comparison wherever they occur.
    path : str
        Path of ``a`` and ``b`` in the documents, for the messages.
    """
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in sorted(set(a) | set(b), key=str):
            if key in ignore:
                continue
            where = f"{path}.{key}"
            if key not in a:
                out.append(f"{where}: only in the second")
            elif key not in b:
                out.append(f"{where}: only in the first")
            else:
                out.extend(differences(a[key], b[key], ignore, where))
        return out
    if isinstance(a, list) and isinstance(b, list):
        out = [f"{path}: {len(a)} items != {len(b)} items"] if len(a) != len(b) else []
        for i, (x, y) in enumerate(zip(a, b)):
            out.extend(differences(x, y, ignore, f"{path}[{i}]"))
        return out
    # bool is an int to Python, but true != 1 in JSON
    if a != b or type(a) is not type(b):
        return [f"{path}: {json.dumps(a)[:80]} != {json.dumps(b)[:80]}"]
    return []


def png_problems(path: Path, min_w: int, min_h: int) -> tuple[list[str], str]:
    """Why ``path`` is not a real picture of at least ``min_w`` x ``min_h`` pixels, and what it is.

    Returns
    -------
    problems : list of str
        Empty when the picture is fine.
    description : str
        Its size in pixels and number of colours.
    """
    from PIL import Image

    if not path.is_file():
        return [f"{path}: no such file"], ""
    if path.read_bytes()[:8] != b"\x89PNG\r\n\x1a\n":
        return [f"{path}: not a PNG file"], ""
    with Image.open(path) as im:
        w, h = im.size
        rgb = im.convert("RGB")
        colours = rgb.getcolors(maxcolors=1 << 20)
    problems = []
    if w < min_w or h < min_h:
        problems.append(f"{path}: {w}x{h} pixels, expected at least {min_w}x{min_h}")
    n = len(colours) if colours is not None else 1 << 20
    if n < 50:
        problems.append(f"{path}: only {n} colours: an empty or flat picture")
    elif colours is not None:
        top = max(count for count, _c in colours)
        if top > 0.95 * w * h:
            problems.append(f"{path}: one colour covers {100 * top / (w * h):.0f} % of it")
    return problems, f"{w}x{h} pixels, {n} colours, {path.stat().st_size // 1024} KiB"


def changed_fraction(a: Path, b: Path) -> float:
    """The fraction of pixels in which the pictures ``a`` and ``b`` differ (1.0 if sizes differ)."""
    from PIL import Image, ImageChops

    with Image.open(a) as ia, Image.open(b) as ib:
        if ia.size != ib.size:
            return 1.0
        diff = ImageChops.difference(ia.convert("RGB"), ib.convert("RGB"))
        # a pixel is changed when any channel differs: the sum of channels, as one band
        mask = diff.convert("L").point(lambda v: 255 if v else 0)
        histogram = mask.histogram()
        return histogram[255] / (ia.size[0] * ia.size[1])


def main(argv: list[str] | None = None) -> int:
    """Run one check; exit code 0 when it holds, 1 when not."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="check", required=True)
    c = sub.add_parser("compare-json", help="two JSON files are equal but for ignored keys")
    c.add_argument("first")
    c.add_argument("second")
    c.add_argument("--ignore", action="append", default=[], metavar="KEY")
    g = sub.add_parser("check-png", help="a PNG of a real picture")
    g.add_argument("path")
    g.add_argument("--min-size", default="800x600", metavar="WxH")
    d = sub.add_parser("compare-png", help="two pictures that differ in few pixels")
    d.add_argument("first")
    d.add_argument("second")
    d.add_argument("--max-changed", type=float, default=0.005, metavar="FRACTION")
    args = p.parse_args(argv)
    if args.check == "compare-png":
        for f in (args.first, args.second):
            if not Path(f).is_file():
                print(f"{f}: no such file")
                return 1
        changed = changed_fraction(Path(args.first), Path(args.second))
        verdict = "OK" if changed <= args.max_changed else f"more than {args.max_changed:.2%}"
        print(f"{args.first} vs {args.second}: {changed:.3%} of the pixels differ, {verdict}")
        return 0 if changed <= args.max_changed else 1
    if args.check == "compare-json":
        docs = [json.loads(Path(f).read_text()) for f in (args.first, args.second)]
        diff = differences(docs[0], docs[1], frozenset(args.ignore))
        for line in diff[:40]:
            print(line)
        if diff:
            print(f"{args.first} and {args.second} differ in {len(diff)} places")
            return 1
        ignored = f" (ignoring {', '.join(args.ignore)})" if args.ignore else ""
        print(f"{args.first} == {args.second}{ignored}")
        return 0
    w, h = (int(v) for v in args.min_size.lower().split("x"))
    problems, description = png_problems(Path(args.path), w, h)
    for line in problems:
        print(line)
    if not problems:
        print(f"{args.path}: {description}, OK")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
