#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
#
# Plot a vecsec-bench CSV: TSC cycles/byte against message size (log-log),
# one subplot per case, one line per implementation (seal/encrypt solid,
# open dashed); burst cases get their own subplots in cycles per message,
# with the mixes drawn as lone markers at their mean message sizes, never
# as a size on the x axis: IMIX (a star) and imix-esp (a diamond: three bursts
# of ESP payloads of IMIX frames).
#
#   /usr/bin/python3 tools/report/plot_bench.py bench.csv bench.png [--title TEXT]
#
# Exit status: 0 written, 1 bad input, 2 matplotlib missing.
import argparse
import csv
import math
import sys


# burst mixes (CSV size column): their marker; a mix is no point of a size line
MIXES = {"imix": "*", "imix-esp": "D"}


def load(path):
	rows = []
	with open(path, newline="") as f:
		for r in csv.DictReader(f):
			if r.get("status") != "ok":
				continue
			rows.append(r)
	return rows


def human(v, _pos=None):
	# 0.5, 20, 5000, 20k, 1M: short labels at any scale
	if v >= 1e6:
		return "%gM" % (v / 1e6)
	if v >= 1e4:
		return "%gk" % (v / 1e3)
	return "%g" % v


def minor_label(v, _pos):
	# label only the 2s and 5s between decades: enough to read, no clutter
	if v <= 0:
		return ""
	lead = v / 10 ** math.floor(math.log10(v) + 1e-9)
	return human(v) if round(lead, 6) in (2.0, 5.0) else ""


def impl_colors(names):
	# vecsec ISA levels in blues/greens (wider = darker), peers in warm colours
	vec = [n for n in names if n.startswith("vecsec-")]
	peers = [n for n in names if not n.startswith("vecsec-")]
	vec_cols = ["#9ecae1", "#4292c6", "#08519c", "#08306b", "#31a354", "#006d2c"]
	peer_cols = ["#d62728", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"]
	cols = {}
	for i, n in enumerate(vec):
		cols[n] = vec_cols[i % len(vec_cols)]
	for i, n in enumerate(peers):
		cols[n] = peer_cols[i % len(peer_cols)]
	return cols


def main():
	ap = argparse.ArgumentParser(description=__doc__)
	ap.add_argument("csv")
	ap.add_argument("png")
	ap.add_argument("--title", default="vecsec-bench")
	a = ap.parse_args()

	try:
		import matplotlib
		matplotlib.use("Agg")
		import matplotlib.pyplot as plt
		from matplotlib.ticker import FuncFormatter, NullFormatter
	except ImportError:
		print("plot_bench: matplotlib is not installed (apt-get install python3-matplotlib);"
			  " CSV only", file=sys.stderr)
		return 2

	rows = load(a.csv)
	if not rows:
		print("plot_bench: no measured rows in %s" % a.csv, file=sys.stderr)
		return 1

	impls = []
	panels = []          # (mode, case) in order of appearance
	for r in rows:
		if r["impl"] not in impls:
			impls.append(r["impl"])
		key = (r["mode"], r["case"])
		if key not in panels:
			panels.append(key)
	cols = impl_colors(impls)

	n = len(panels)
	ncols = 3 if n > 4 else min(n, 2)
	nrows = math.ceil(n / ncols)
	fig, axes = plt.subplots(nrows, ncols, figsize=(5.2 * ncols, 3.6 * nrows + 1.0),
							 squeeze=False)
	for ax in axes.flat[n:]:
		ax.set_visible(False)

	for ax, (mode, case) in zip(axes.flat, panels):
		sel = [r for r in rows if r["mode"] == mode and r["case"] == case]
		ops = []
		for r in sel:
			if r["op"] not in ops:
				ops.append(r["op"])
		for impl in impls:
			for k, op in enumerate(ops):
				pts = [r for r in sel if r["impl"] == impl and r["op"] == op]
				if not pts:
					continue
				style = "-" if k == 0 else "--"
				y = "cycles_per_op" if mode == "burst" else "cycles_per_byte"
				line = [(float(r["bytes"]), float(r[y])) for r in pts if r["size"] not in MIXES]
				line.sort()
				if line:
					ax.plot([p[0] for p in line], [p[1] for p in line], style,
							color=cols[impl], marker="o", markersize=3, linewidth=1.4)
				for r in pts:
					if r["size"] in MIXES:
						ax.plot([float(r["bytes"])], [float(r[y])], marker=MIXES[r["size"]],
								markersize=10 if r["size"] == "imix" else 6,
								color=cols[impl], linestyle="none")
		ax.set_xscale("log", base=2)
		ax.set_yscale("log")
		xs = sorted({float(r["bytes"]) for r in sel if r["size"] not in MIXES})
		if xs:
			ax.set_xticks(xs)
			ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: "%d" % round(v)))
			ax.xaxis.set_minor_formatter(NullFormatter())
			ax.tick_params(axis="x", labelsize=7, labelrotation=45)
		ax.yaxis.set_major_formatter(FuncFormatter(human))
		ax.yaxis.set_minor_formatter(FuncFormatter(minor_label))
		ax.tick_params(axis="y", which="both", labelsize=7)
		ax.grid(True, which="both", alpha=0.25)
		if mode == "burst":
			ax.set_title("burst of 32: %s (%s)" % (case, " solid, ".join(ops) +
												   (" dashed" if len(ops) > 1 else "")),
						 fontsize=10)
			ax.set_ylabel("TSC cycles / message")
			ax.set_xlabel("message bytes (star: IMIX mean, diamond: imix-esp mean)")
		else:
			ax.set_title("%s (%s)" % (case, " solid, ".join(ops) +
									  (" dashed" if len(ops) > 1 else "")), fontsize=10)
			ax.set_ylabel("TSC cycles / byte")
			ax.set_xlabel("message bytes")

	handles = [plt.Line2D([], [], color=cols[i], marker="o", linewidth=1.6, label=i)
			   for i in impls]
	fig.legend(handles=handles, loc="upper center", ncol=min(len(impls), 8), fontsize=9,
			   frameon=False, bbox_to_anchor=(0.5, 1.0))
	fig.suptitle(a.title + "  (lower is better)", y=1.0 - 0.45 / fig.get_figheight() - 0.02,
				 fontsize=11)
	fig.tight_layout(rect=(0, 0, 1, 1.0 - 0.9 / fig.get_figheight()))
	fig.savefig(a.png, dpi=110)
	return 0


if __name__ == "__main__":
	sys.exit(main())
